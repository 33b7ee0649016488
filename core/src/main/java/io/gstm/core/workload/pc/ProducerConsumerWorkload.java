package io.gstm.core.workload.pc;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.BatchChecks;
import io.gstm.core.workload.TxContext;
import io.gstm.core.workload.ValueChecks;
import io.gstm.core.workload.NamedWorkload;
import io.gstm.core.workload.ParamSlot;
import io.gstm.core.workload.TxType;
import java.util.BitSet;

/**
 * Producers and consumers over one bounded buffer (the correctness test of the coursework paper,
 * section 4.4): the buffer and its counters have different types but share one lock table, so a
 * transaction changes both at once. Twin of {@code gstm/workloads/producer_consumer.cuh}; keep
 * the two in step.
 *
 * <p>Regions (indices given by the params): {@code slots}, INT64, the ring buffer of
 * {@code capacity} items; {@code counters}, INT32, word 0 the head (items taken so far), word 1
 * the tail (items put so far); {@code taken}, INT64, one word per TAKE transaction, where a
 * committed TAKE records the item it consumed, so that the store itself says who got what.
 *
 * <p>Batch encoding: {@code params = {slotsRegion, countersRegion, takenRegion, capacity}}.
 * A PUT (type 0; column 0 the producer, column 1 its sequence number) reads head and tail; a
 * full buffer is a semantic conflict, else it writes the item {@code producer << 32 | seq} to
 * {@code slots[tail % capacity]} and advances the tail. A TAKE (type 1; column 0 the consumer,
 * column 1 its word of {@code taken}, unique per TAKE) reads head and tail; an empty buffer is a
 * semantic conflict, else it reads {@code slots[head % capacity]}, records it in
 * {@code taken[column 1]} and advances the head. The modulo is unsigned, so a slot index is in
 * range whatever the counters hold.
 *
 * <p>Every transaction touches four locks (head, tail, a slot, a word of {@code taken}; fewer
 * when lock coverage merges them), so batches need a set capacity of at least
 * {@value #SET_ENTRIES}.
 */
public final class ProducerConsumerWorkload extends NamedWorkload {
  public static final String NAME = "producer-consumer";
  public static final ProducerConsumerWorkload INSTANCE = new ProducerConsumerWorkload();

  /** The transaction types, in code order. */
  public enum Type implements TxType { PUT, TAKE }

  /** The slots of {@code params}: three region indices, then the buffer's capacity. */
  public enum Param implements ParamSlot { SLOTS_REGION, COUNTERS_REGION, TAKEN_REGION, CAPACITY }

  /** Word of the counters region holding the head (items taken so far). */
  public static final int HEAD = 0;
  /** Word of the counters region holding the tail (items put so far). */
  public static final int TAIL = 1;
  /** Locks one transaction may touch: head, tail, a slot, a word of taken. */
  public static final int SET_ENTRIES = 4;

  private ProducerConsumerWorkload() {
    super(NAME, 1, 0); // puts run before takes when a batch is pre-sorted
  }

  @Override
  public void validate(StoreLayout layout, TxBatch batch) {
    BatchChecks.params(batch, "producer-consumer", Param.values());
    int slots = Param.SLOTS_REGION.region(batch, layout, RegionType.INT64, "slots");
    int counters = Param.COUNTERS_REGION.region(batch, layout, RegionType.INT32, "counters");
    int taken = Param.TAKEN_REGION.region(batch, layout, RegionType.INT64, "taken words");
    if (slots == counters || slots == taken || counters == taken) {
      throw new IllegalArgumentException("params: the slots, counters and taken regions must be "
          + "distinct, got " + slots + ", " + counters + ", " + taken);
    }
    if (layout.region(counters).length() < 2) {
      throw new IllegalArgumentException("region " + counters + " (counters) must hold at least "
          + "2 words (head, tail), got " + layout.region(counters).length());
    }
    int slotWords = layout.region(slots).length();
    int capacity = Param.CAPACITY.of(batch);
    ValueChecks.inRange("capacity", capacity, 1, slotWords,
        "the length of slots region " + slots);
    if (batch.capacity() < SET_ENTRIES) {
      throw new IllegalArgumentException("batch capacity must be at least " + SET_ENTRIES
          + " set entries (head, tail, a slot, a taken word), got " + batch.capacity());
    }
    BatchChecks.columns(batch, "producer-consumer", 2, "producer or consumer, sequence or "
        + "taken word");
    BatchChecks.types(batch, "producer-consumer", Type.values());
    int[] types = batch.types();
    int[] c0 = batch.columns()[0];
    int[] c1 = batch.columns()[1];
    int takenWords = layout.region(taken).length();
    BitSet used = new BitSet(takenWords);
    for (int t = 0; t < types.length; t++) {
      if (Type.PUT.is(types[t])) {
        if (c0[t] < 0 || c1[t] < 0) {
          throw new IllegalArgumentException("put " + t + ": producer and sequence number must be "
              + "at least 0, got producer " + c0[t] + ", seq " + c1[t]);
        }
      } else if (Type.TAKE.is(types[t])) {
        if (c1[t] < 0 || c1[t] >= takenWords) {
          throw new IllegalArgumentException("take " + t + ": taken word " + c1[t] + " is out of "
              + "range: region " + taken + " (taken) has words 0.." + (takenWords - 1));
        }
        if (used.get(c1[t])) {
          throw new IllegalArgumentException("take " + t + ": taken word " + c1[t] + " is used "
              + "by another take; each take needs its own word");
        }
        used.set(c1[t]);
      }
    }
  }

  @Override
  public long run(TxContext tx, TxBatch batch, int t) {
    int slots = Param.SLOTS_REGION.of(batch);
    int counters = Param.COUNTERS_REGION.of(batch);
    int capacity = Param.CAPACITY.of(batch);
    int head = (int) tx.read(counters, HEAD);
    int tail = (int) tx.read(counters, TAIL);
    int used = tail - head;
    if (Type.PUT.is(batch.types()[t])) {
      if (used >= capacity) {
        tx.semanticConflict();  // full
        return 0;
      }
      tx.write(slots, Integer.remainderUnsigned(tail, capacity),
          item(batch.columns()[0][t], batch.columns()[1][t]));
      tx.write(counters, TAIL, tail + 1);
      return 0;
    }
    if (used <= 0) {
      tx.semanticConflict();  // empty
      return 0;
    }
    long item = tx.read(slots, Integer.remainderUnsigned(head, capacity));
    tx.write(Param.TAKEN_REGION.of(batch), batch.columns()[1][t], item);
    tx.write(counters, HEAD, head + 1);
    return item;
  }

  /** The item a producer puts as its {@code seq}-th: {@code producer << 32 | seq}. */
  public static long item(int producer, int seq) {
    return ((long) producer << 32) | (seq & 0xffffffffL);
  }

  public static int producerOf(long item) {
    return (int) (item >>> 32);
  }

  public static int seqOf(long item) {
    return (int) item;
  }
}
