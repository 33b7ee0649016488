package io.gstm.spark.state;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Tuple2;

/**
 * The map side of an apply: reads each transaction row once, checks what only the data can tell
 * (a null key or value, an unknown program: per-row outcomes), and sends the row to the
 * partition that owns all its keys, or, when its keys have several owners, to the
 * cross-partition phase (bucket {@code P}) with a request to each owner for the values of its
 * keys. One chunk per target per input partition, column by column.
 */
final class Routing {
  private Routing() {}

  static Iterator<Tuple2<Integer, TxChunk>> route(int inputPartition, Iterator<InternalRow> it,
      ApplyPlan plan) {
    KeyPartitioner parts = plan.state.partitioner();
    int p = parts.partitions();
    int slotCount = plan.slots.length;
    TxChunk[] out = new TxChunk[p + 1];
    Map<UTF8String, Integer> byName = new HashMap<>();
    for (int i = 0; i < plan.programNames.length; i++) {
      byName.put(UTF8String.fromString(plan.programNames[i]), i);
    }
    long[] values = new long[slotCount];
    int[] owners = new int[16];
    long row = 0;
    while (it.hasNext()) {
      InternalRow r = it.next();
      long txId = plan.idIndex >= 0 && !r.isNullAt(plan.idIndex) ? r.getLong(plan.idIndex)
          : ((long) inputPartition << 40) | row;
      row++;
      java.util.Arrays.fill(values, 0L);
      byte status = 0;
      String cause = null;
      int type = 0;
      if (plan.typeIndex >= 0) {
        if (r.isNullAt(plan.typeIndex)) {
          type = -1;
        } else if (plan.typeByName) {
          Integer t = byName.get(r.getUTF8String(plan.typeIndex));
          type = t == null ? -1 : t;
        } else {
          type = plan.typeOf(r.getLong(plan.typeIndex));
        }
        if (type < 0) {
          status = OutcomeChunk.UNKNOWN_PROGRAM;
          cause = "program " + (r.isNullAt(plan.typeIndex) ? "null"
              : "'" + (plan.typeByName ? r.getUTF8String(plan.typeIndex).toString()
                  : String.valueOf(r.getLong(plan.typeIndex))) + "'")
              + " is not among " + java.util.Arrays.toString(plan.programNames);
        }
      }
      int target = -1;
      int nOwners = 0;
      if (status == 0) {
        for (int s : plan.slotsOf[type]) {
          ApplyPlan.Slot slot = plan.slots[s];
          if (!read(r, slot, values, s)) {
            status = slot.key() ? OutcomeChunk.NULL_KEY : OutcomeChunk.NULL_VALUE;
            cause = (slot.key() ? "key column '" : "column '") + slot.name() + "' is null";
            break;
          }
        }
      }
      if (status == 0) {
        for (int s : plan.keySlotsOf[type]) {
          int o = parts.owner(values[s]);
          boolean seen = false;
          for (int k = 0; k < nOwners; k++) {
            seen |= owners[k] == o;
          }
          if (!seen) {
            if (nOwners == owners.length) {
              owners = java.util.Arrays.copyOf(owners, nOwners * 2);
            }
            owners[nOwners++] = o;
          }
        }
        target = nOwners == 0 ? (int) Math.floorMod(txId, (long) p)
            : nOwners == 1 ? owners[0] : p;
        if (target == p && plan.rejectCross) {
          StringBuilder keys = new StringBuilder();
          for (int s : plan.keySlotsOf[type]) {
            keys.append(keys.length() == 0 ? "" : ", ").append(plan.slots[s].name()).append('=')
                .append(values[s]).append(" (partition ").append(parts.owner(values[s]))
                .append(')');
          }
          throw new IllegalArgumentException("transaction " + txId + " (program '"
              + plan.programNames[type] + "') spans partitions of state '" + plan.state.name()
              + "': " + keys + "; cross-partition transactions are rejected (crossPartition("
              + "\"reject\")): allow them, or key the state so that they stay in one partition");
        }
      } else {
        target = (int) Math.floorMod(txId, (long) p);
      }
      chunk(out, target, slotCount).add(txId, Math.max(type, -1), status, cause, values);
      if (target == p) {
        for (int s : plan.keySlotsOf[type]) {
          chunk(out, parts.owner(values[s]), slotCount).request(values[s]);
        }
      }
    }
    List<Tuple2<Integer, TxChunk>> list = new ArrayList<>();
    for (int t = 0; t <= p; t++) {
      if (out[t] != null) {
        list.add(new Tuple2<>(t, out[t].trim()));
      }
    }
    return list.iterator();
  }

  private static TxChunk chunk(TxChunk[] out, int t, int slotCount) {
    if (out[t] == null) {
      out[t] = new TxChunk(slotCount, 64);
    }
    return out[t];
  }

  /** Puts the slot's raw bits in {@code r} into {@code out[s]}; false when it is null. */
  private static boolean read(InternalRow r, ApplyPlan.Slot slot, long[] out, int s) {
    int i = slot.source();
    if (r.isNullAt(i)) {
      return false;
    }
    if (slot.element() < 0) {
      out[s] = bits(r, i, slot);
      return true;
    }
    ArrayData a = r.getArray(i);
    int e = slot.element();
    if (a.numElements() <= e || a.isNullAt(e)) {
      return false;
    }
    out[s] = bits(a, e, slot);
    return true;
  }

  /** The raw bits of field {@code i} of a row or an array, as the slot's type stores them. */
  private static long bits(SpecializedGetters g, int i, ApplyPlan.Slot slot) {
    return slot.key() ? g.getLong(i) : switch (slot.type()) {
      case INT32 -> g.getInt(i);
      case INT64 -> g.getLong(i);
      case FLOAT32 -> Float.floatToRawIntBits(g.getFloat(i));
      default -> Double.doubleToRawLongBits(g.getDouble(i));
    };
  }
}
