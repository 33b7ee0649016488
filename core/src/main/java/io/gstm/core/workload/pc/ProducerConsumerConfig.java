package io.gstm.core.workload.pc;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.Shuffles;
import io.gstm.core.workload.ValueChecks;
import java.util.Arrays;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A producer-consumer run (the coursework paper's section 4.4 test): {@code producers} producers
 * each put {@code itemsPerProducer} items (sequence numbers 0..k-1) into one bounded buffer and
 * {@code consumers} consumers take them all out. The N*k PUT and N*k TAKE transactions (take j
 * belongs to consumer j % M and records its item in word j of the taken region) are shuffled
 * (seeded) into one table and spread over {@code blocks * threadsPerBlock} threads; each thread
 * gets {@link #txPerThread()} of them or one fewer.
 *
 * <p>Every TAKE can eventually run and so can every PUT (the buffer always has room or an item
 * for some pending transaction). Under POSTPONE a thread that meets a semantic conflict moves on
 * to its other pending transactions, over its whole share of the table (Algorithm 3 of the JPDC
 * paper; {@code gstm/semantic.cuh}), so everything commits however many transactions a thread
 * owns, unless the semantic limit runs out first.
 *
 * <p>Built by {@link #builder()}, with these settings: {@code producers} N, at least 1;
 * {@code consumers} M, 1..N*k; {@code itemsPerProducer} k, at least 1, N*k at most
 * {@link #MAX_ITEMS}; {@code bufferCapacity} slots in the ring buffer,
 * 1..{@link #MAX_BUFFER_CAPACITY}; {@code lockCoverage} buffer slots per lock, at least 1 (the
 * counters and taken words have a lock each); {@code grid(threadsPerBlock, blocks)} 1..256 threads
 * per block, at least 1 block; {@code seed} the random seed of the shuffle.
 */
public final class ProducerConsumerConfig {
  /** Items per batch: the table holds twice as many transactions, as many as the bank allows. */
  public static final int MAX_ITEMS = Integer.MAX_VALUE / 32;
  /** Largest ring buffer. */
  public static final int MAX_BUFFER_CAPACITY = 1 << 26;
  /** What an unused word of the taken region holds: no item has producer 2^32 - 1. */
  public static final long NOT_TAKEN = -1L;
  public static final int SLOTS_REGION = 0;
  public static final int COUNTERS_REGION = 1;
  public static final int TAKEN_REGION = 2;

  private final int producers;
  private final int consumers;
  private final int itemsPerProducer;
  private final int bufferCapacity;
  private final int lockCoverage;
  private final int threadsPerBlock;
  private final int blocks;
  private final long seed;

  private ProducerConsumerConfig(Builder b) {
    this.producers = b.producers;
    this.consumers = b.consumers;
    this.itemsPerProducer = b.itemsPerProducer;
    this.bufferCapacity = b.bufferCapacity;
    this.lockCoverage = b.lockCoverage;
    this.threadsPerBlock = b.threadsPerBlock;
    this.blocks = b.blocks;
    this.seed = b.seed;
    ValueChecks.atLeast("producers", producers, 1);
    ValueChecks.atLeast("itemsPerProducer", itemsPerProducer, 1);
    long items = (long) producers * itemsPerProducer;
    if (items > MAX_ITEMS) {
      throw new IllegalArgumentException("items: producers * itemsPerProducer = " + items
          + " exceeds " + MAX_ITEMS + " per batch");
    }
    ValueChecks.inRange("consumers", consumers, 1, items,
        "producers * itemsPerProducer, so that each takes at least one item");
    ValueChecks.inRange("bufferCapacity", bufferCapacity, 1, MAX_BUFFER_CAPACITY);
    ValueChecks.atLeast("lockCoverage", lockCoverage, 1, "buffer slot per lock");
    TxBatch.checkThreads(threadsPerBlock, blocks);
  }

  /**
   * A builder with small defaults: 32 producers of 32 items each, 32 consumers, a buffer of 64
   * slots with one lock each, 8 blocks of 256 threads, seed 1.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this configuration's values, to derive another. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.producers = producers;
    b.consumers = consumers;
    b.itemsPerProducer = itemsPerProducer;
    b.bufferCapacity = bufferCapacity;
    b.lockCoverage = lockCoverage;
    b.threadsPerBlock = threadsPerBlock;
    b.blocks = blocks;
    b.seed = seed;
    return b;
  }

  public int producers() {
    return producers;
  }

  public int consumers() {
    return consumers;
  }

  public int itemsPerProducer() {
    return itemsPerProducer;
  }

  public int bufferCapacity() {
    return bufferCapacity;
  }

  public int lockCoverage() {
    return lockCoverage;
  }

  public int threadsPerBlock() {
    return threadsPerBlock;
  }

  public int blocks() {
    return blocks;
  }

  public long seed() {
    return seed;
  }

  /** N*k: items produced, and consumed. */
  public int items() {
    return producers * itemsPerProducer;
  }

  /** 2*N*k: the PUTs and the TAKEs. */
  public int txCount() {
    return 2 * items();
  }

  public int threads() {
    return blocks * threadsPerBlock;
  }

  /** Transactions of the busiest thread: txCount / threads, rounded up. */
  public int txPerThread() {
    return (int) (((long) txCount() + threads() - 1) / threads());
  }

  /** Slots (INT64, configurable coverage), counters (INT32 head and tail), taken (INT64). */
  public StoreLayout layout() {
    return StoreLayout.of(
        new RegionSpec("slots", RegionType.INT64, bufferCapacity, lockCoverage),
        new RegionSpec("counters", RegionType.INT32, 2, 1),
        new RegionSpec("taken", RegionType.INT64, items(), 1));
  }

  /** Writes the initial state: an empty buffer (slots {@link #NOT_TAKEN}), counters 0, taken
   * words {@link #NOT_TAKEN}. */
  public void initialise(TxStore store) {
    long[] slots = new long[bufferCapacity];
    Arrays.fill(slots, NOT_TAKEN);
    store.writeInt64(SLOTS_REGION, slots);
    store.writeInt32(COUNTERS_REGION, new int[2]);
    long[] taken = new long[items()];
    Arrays.fill(taken, NOT_TAKEN);
    store.writeInt64(TAKEN_REGION, taken);
  }

  /** The seeded batch: params {slots 0, counters 1, taken 2, bufferCapacity}, set capacity 4. */
  public TxBatch batch() {
    int items = items();
    int n = txCount();
    int[] types = new int[n];
    int[][] cols = new int[2][n];
    int t = 0;
    for (int p = 0; p < producers; p++) {
      for (int s = 0; s < itemsPerProducer; s++, t++) {
        types[t] = ProducerConsumerWorkload.Type.PUT.code();
        cols[0][t] = p;
        cols[1][t] = s;
      }
    }
    for (int j = 0; j < items; j++, t++) {
      types[t] = ProducerConsumerWorkload.Type.TAKE.code();
      cols[0][t] = j % consumers;
      cols[1][t] = j;
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    Shuffles.rows(types, cols, rnd);
    return new TxBatch(ProducerConsumerWorkload.NAME, types, cols,
        new int[] {SLOTS_REGION, COUNTERS_REGION, TAKEN_REGION, bufferCapacity}, threadsPerBlock,
        blocks, TxBatch.capacityFor(ProducerConsumerWorkload.SET_ENTRIES));
  }

  // Value semantics, as when this was a record: configurations name test cases and results.
  @Override
  public boolean equals(Object other) {
    return other instanceof ProducerConsumerConfig o
        && producers == o.producers
        && consumers == o.consumers
        && itemsPerProducer == o.itemsPerProducer
        && bufferCapacity == o.bufferCapacity
        && lockCoverage == o.lockCoverage
        && threadsPerBlock == o.threadsPerBlock
        && blocks == o.blocks
        && seed == o.seed;
  }

  @Override
  public int hashCode() {
    return Objects.hash(producers, consumers, itemsPerProducer, bufferCapacity, lockCoverage,
        threadsPerBlock, blocks, seed);
  }

  @Override
  public String toString() {
    return "ProducerConsumerConfig[producers=" + producers
        + ", consumers=" + consumers
        + ", itemsPerProducer=" + itemsPerProducer
        + ", bufferCapacity=" + bufferCapacity
        + ", lockCoverage=" + lockCoverage
        + ", threadsPerBlock=" + threadsPerBlock
        + ", blocks=" + blocks
        + ", seed=" + seed + "]";
  }

  /** Named settings of a {@link ProducerConsumerConfig}; {@link #build} checks them. */
  public static final class Builder {
    private int producers = 32;
    private int consumers = 32;
    private int itemsPerProducer = 32;
    private int bufferCapacity = 64;
    private int lockCoverage = 1;
    private int threadsPerBlock = 256;
    private int blocks = 8;
    private long seed = 1;

    private Builder() {}

    /** N producers, at least 1. */
    public Builder producers(int value) {
      producers = value;
      return this;
    }

    /** M consumers, 1..N*k. */
    public Builder consumers(int value) {
      consumers = value;
      return this;
    }

    /** k items per producer, at least 1; N*k at most {@link #MAX_ITEMS}. */
    public Builder itemsPerProducer(int value) {
      itemsPerProducer = value;
      return this;
    }

    /** Slots in the ring buffer, 1..{@link #MAX_BUFFER_CAPACITY}. */
    public Builder bufferCapacity(int value) {
      bufferCapacity = value;
      return this;
    }

    /** Buffer slots per lock, at least 1. */
    public Builder lockCoverage(int value) {
      lockCoverage = value;
      return this;
    }

    /** Random seed of the shuffle. */
    public Builder seed(long value) {
      seed = value;
      return this;
    }

    /** {@code blocks} blocks of {@code threadsPerBlock} (1..256) threads. */
    public Builder grid(int threadsPerBlock, int blocks) {
      this.threadsPerBlock = threadsPerBlock;
      this.blocks = blocks;
      return this;
    }

    /** The configuration; an IllegalArgumentException names a bad value and its limit. */
    public ProducerConsumerConfig build() {
      return new ProducerConsumerConfig(this);
    }
  }
}
