package io.gstm.core.workload.memcached;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.BatchChecks;
import io.gstm.core.workload.TxContext;
import io.gstm.core.workload.ValueChecks;
import io.gstm.core.workload.NamedWorkload;
import io.gstm.core.workload.ParamSlot;
import io.gstm.core.workload.TxType;

/**
 * A MemcachedGPU-style cache: {@code sets} sets of {@code ways} slots, LRU replacement per set.
 * Twin of {@code gstm/workloads/memcached.cuh}; keep the two in step.
 *
 * <p>Regions (all INT32): 0 {@code tags} (key + 1 per slot, 0 = empty), 1 {@code values} (the
 * value's stamp per slot), 2 {@code lru} (last-use tick per slot), 3 {@code clock} (one tick
 * counter per set). A key is a 32-bit id standing for a 16-byte key (its bytes derive from the
 * id, see {@link #keyBytes}); a value stamp stands for a 32-byte value ({@link #valueBytes}).
 * A GET (read-only) scans the set's tags and reads the value of the matching slot: its result
 * is the stamp, or -1 for a miss. A PUT scans the tags; on a hit it updates that slot, otherwise
 * it takes the first empty slot or else the least recently used one (reading the set's lru
 * ticks); it writes 4 items: tag, value, lru and the set's clock. Columns: key, value stamp;
 * params {sets, ways}.
 */
public final class MemcachedWorkload extends NamedWorkload {
  public static final String NAME = "memcached";
  public static final MemcachedWorkload INSTANCE = new MemcachedWorkload();

  /** The transaction types, in code order. */
  public enum Type implements TxType { GET, PUT }

  /** The slots of {@code params}. */
  public enum Param implements ParamSlot { SETS, WAYS }

  // The four regions, in store order.
  public static final int TAGS = 0;
  public static final int VALUES = 1;
  public static final int LRU = 2;
  public static final int CLOCK = 3;
  public static final int KEY_BYTES = 16;
  public static final int VALUE_BYTES = 32;

  private MemcachedWorkload() {
    super(NAME, 0, 0);
  }

  /** The set a key hashes to (unsigned multiplicative hash; the kernel uses the same). */
  public static int setOf(int key, int sets) {
    long h = ((key & 0xffffffffL) * 2654435761L) & 0xffffffffL;
    return (int) (h % sets);
  }

  /** The 16 bytes key {@code key} stands for. */
  public static byte[] keyBytes(int key) {
    byte[] b = new byte[KEY_BYTES];
    for (int i = 0; i < KEY_BYTES; i++) {
      b[i] = (byte) (i < 4 ? key >>> (8 * i) : (key * 31 + i) >>> (i % 4 * 8));
    }
    return b;
  }

  /** The 32 bytes value stamp {@code stamp} stands for. */
  public static byte[] valueBytes(int stamp) {
    byte[] b = new byte[VALUE_BYTES];
    for (int i = 0; i < VALUE_BYTES; i++) {
      b[i] = (byte) (i < 4 ? stamp >>> (8 * i) : stamp * 17 + i);
    }
    return b;
  }

  public static int sets(TxBatch batch) {
    return Param.SETS.of(batch);
  }

  public static int ways(TxBatch batch) {
    return Param.WAYS.of(batch);
  }

  /** A PUT reads every tag, at most every lru tick, and the clock. */
  public static int maxPutReads(TxBatch batch) {
    return 2 * ways(batch) + 1;
  }

  @Override
  public void validate(StoreLayout layout, TxBatch batch) {
    BatchChecks.params(batch, "memcached", Param.values());
    int sets = sets(batch);
    int ways = ways(batch);
    ValueChecks.inRange("ways", ways, 1, MemcachedConfig.MAX_WAYS);
    ValueChecks.atLeast("sets", sets, 1);
    if (layout.regionCount() != 4) {
      throw new IllegalArgumentException("regions: memcached expects 4 regions (tags, values, "
          + "lru, clock), got " + layout.regionCount());
    }
    long slots = (long) sets * ways;
    for (int r = 0; r < 4; r++) {
      long want = r == CLOCK ? sets : slots;
      if (layout.region(r).type() != RegionType.INT32 || layout.region(r).length() != want) {
        throw new IllegalArgumentException("region " + r + " ('" + layout.region(r).name()
            + "') must be INT32 with " + want + " words for " + sets + " sets x " + ways
            + " ways, got " + layout.region(r).type() + " x " + layout.region(r).length());
      }
    }
    BatchChecks.columns(batch, "memcached", 2, "key, value");
    BatchChecks.types(batch, "memcached", Type.values());
    for (int t = 0; t < batch.txCount(); t++) {
      if (batch.columns()[0][t] < 0 || batch.columns()[0][t] == Integer.MAX_VALUE) {
        throw new IllegalArgumentException("keys must be in 0.." + (Integer.MAX_VALUE - 1)
            + ", got " + batch.columns()[0][t] + " (transaction " + t + ")");
      }
      if (batch.columns()[1][t] < 0) {
        throw new IllegalArgumentException("value stamps must be at least 0, got "
            + batch.columns()[1][t] + " (transaction " + t + ")");
      }
    }
  }

  @Override
  public long run(TxContext tx, TxBatch batch, int t) {
    int ways = ways(batch);
    int key = batch.columns()[0][t];
    int set = setOf(key, sets(batch));
    int base = set * ways;
    int hit = -1;
    int empty = -1;
    for (int w = 0; w < ways && hit < 0; w++) {
      int tag = (int) tx.read(TAGS, base + w);
      if (tag == key + 1) {
        hit = w;
      } else if (tag == 0 && empty < 0) {
        empty = w;
      }
    }
    if (Type.GET.is(batch.types()[t])) {
      return hit < 0 ? -1 : (int) tx.read(VALUES, base + hit);
    }
    int slot = hit >= 0 ? hit : empty;
    if (slot < 0) {
      int oldest = Integer.MAX_VALUE;
      for (int w = 0; w < ways; w++) {
        int tick = (int) tx.read(LRU, base + w);
        if (tick < oldest) {
          oldest = tick;
          slot = w;
        }
      }
    }
    int tick = (int) tx.read(CLOCK, set) + 1;
    tx.write(CLOCK, set, tick);
    tx.write(TAGS, base + slot, key + 1);
    tx.write(VALUES, base + slot, batch.columns()[1][t]);
    tx.write(LRU, base + slot, tick);
    return 0;
  }

  @Override
  public boolean readOnly(TxBatch batch, int type) {
    return Type.GET.is(type);
  }
}
