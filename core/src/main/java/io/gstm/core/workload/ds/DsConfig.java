package io.gstm.core.workload.ds;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.program.ProgramBinding;
import io.gstm.core.store.Algorithm;
import io.gstm.core.workload.ValueChecks;
import java.util.Objects;

/**
 * One data-structure batch: which structure, its size and key range, the operation mix, the
 * local work between transactions and the grid. Everything is checked here, before a store or a
 * batch exists, and a bad value is an {@code IllegalArgumentException} naming the parameter and
 * its limit.
 *
 * <p>Why the limits: a transaction program touches at most {@link #MAX_SET_WORDS} distinct words
 * per attempt (the largest PR-STM set the program kernels are built for), counting every loop at
 * its bound, and the batch runs with the smallest set that holds its programs' bound
 * ({@link #setWords()}: 16 words keep the sets in registers on the GPU, 64 spill them). A walk
 * along a list or down the tree reads a word per step, so the walks are bounded:
 * {@link #hashChainBound()} for a bucket (its keys are {@code b, b + 128, ...}, so the key range
 * bounds a chain), {@link #walkBound()} for the tree and the skip list (a longer walk ends the
 * transaction with {@link DsPrograms#WALK_BOUND}, an outcome decided on a consistent state and
 * reproduced by the serial replay).
 *
 * <p>Built by {@link #builder()} (or {@link #fullContention} and {@link #lowContention}), with
 * these settings:
 *
 * <ul>
 *   <li>{@code kind}: the structure
 *   <li>{@code keyRange}: keys are drawn from {@code 0..keyRange-1} (queue: unused, at least 1)
 *   <li>{@code initialEntries}: entries in the structure before the batch
 *   <li>{@code pool}: nodes in the pool, 0 for what the batch needs. Queue and hash map take a
 *       fresh node for each insert (pre-assigned per transaction: no shared free list to contend
 *       on); an insert whose node lies past the pool ends {@link DsPrograms#POOL_EXHAUSTED}. Tree
 *       and skip list keep one node slot per key, so the pool bounds the keys they can hold
 *   <li>{@code transactions}: transactions in the batch
 *   <li>{@code insertFraction}: enqueues (queue) or inserts
 *   <li>{@code deleteFraction}: dequeues are the queue's remainder; deletes for the hash map and
 *       the skip list; 0 for the tree (Cederman's tree only inserts and looks up); the rest are
 *       lookups
 *   <li>{@code maxWork}: local work before a transaction touches the structure: iterations drawn
 *       uniformly from {@code 0..maxWork} (0: full contention, transactions back to back)
 *   <li>{@code levels}: skip-list levels, 1..{@link #MAX_LEVELS} (other structures: ignored,
 *       give 1)
 *   <li>{@code grid(threadsPerBlock, blocks)}: 1..256 threads per block, at least 1 block
 *   <li>{@code seed}: seed of the initial contents and of the batch
 * </ul>
 */
public final class DsConfig {
  /** Distinct words one attempt of a program may touch. */
  public static final int MAX_SET_WORDS =
      ProgramBinding.CAPACITIES[ProgramBinding.CAPACITIES.length - 1];
  /** Buckets of the hash map (Cederman's 128). */
  public static final int BUCKETS = 128;
  /** The longest bucket chain an insert may walk: 2 reads a step and 4 more words. */
  public static final int MAX_HASH_CHAIN = (MAX_SET_WORDS - 4) / 2;
  /** Keys of the hash map: a bucket then holds at most {@link #MAX_HASH_CHAIN} of them. */
  public static final int MAX_HASH_KEYS = BUCKETS * MAX_HASH_CHAIN;
  /** Skip-list levels (the JPDC paper's 5): an insert writes 2 words a level. */
  public static final int MAX_LEVELS = 5;
  /** CSMV updates write at most 8 words: a skip list of at most 4 levels. */
  public static final int MAX_CSMV_LEVELS = 4;
  /** Keys (and node slots) of the tree and the skip list. */
  public static final int MAX_KEYED = 1 << 24;
  /** Nodes of the queue's and the hash map's pools, and transactions per batch. */
  public static final int MAX_POOL = 1 << 26;
  public static final int MAX_TRANSACTIONS = 1 << 26;
  /** Iterations of local work. */
  public static final int MAX_WORK = 1 << 16;

  private final DsKind kind;
  private final int keyRange;
  private final int initialEntries;
  private final int pool;
  private final int transactions;
  private final double insertFraction;
  private final double deleteFraction;
  private final int maxWork;
  private final int levels;
  private final int threadsPerBlock;
  private final int blocks;
  private final long seed;

  private DsConfig(Builder b) {
    this.kind = b.kind;
    this.keyRange = b.keyRange;
    this.initialEntries = b.initialEntries;
    this.pool = b.pool;
    this.transactions = b.transactions;
    this.insertFraction = b.insertFraction;
    this.deleteFraction = b.deleteFraction;
    this.maxWork = b.maxWork;
    this.levels = b.levels;
    this.threadsPerBlock = b.threadsPerBlock;
    this.blocks = b.blocks;
    this.seed = b.seed;
    if (kind == null) {
      throw new IllegalArgumentException("structure: missing, expected one of "
          + DsKind.labels());
    }
    int maxKeys = switch (kind) {
      case QUEUE -> Integer.MAX_VALUE;
      case HASHMAP -> MAX_HASH_KEYS;
      case TREE, SKIPLIST -> MAX_KEYED;
    };
    if (keyRange < 1 || keyRange > maxKeys) {
      throw new IllegalArgumentException("keyRange must be in 1.." + maxKeys + " for the "
          + kind.label() + (kind == DsKind.HASHMAP ? " (128 buckets of at most "
          + MAX_HASH_CHAIN + " keys: a longer chain outgrows a transaction's " + MAX_SET_WORDS
          + " words)" : "") + ", got " + keyRange);
    }
    ValueChecks.inRange("transactions", transactions, 1, MAX_TRANSACTIONS);
    int maxInitial = kind == DsKind.QUEUE ? MAX_POOL - 1 : keyRange;
    if (initialEntries < 0 || initialEntries > maxInitial) {
      throw new IllegalArgumentException("initialEntries must be in 0.." + maxInitial
          + (kind == DsKind.QUEUE ? "" : " (the key range: keys are distinct)") + ", got "
          + initialEntries);
    }
    ValueChecks.fraction("insertFraction", insertFraction);
    ValueChecks.fraction("deleteFraction", deleteFraction);
    if (kind == DsKind.QUEUE && deleteFraction != 0) {
      throw new IllegalArgumentException("deleteFraction must be 0 for the queue (its dequeues "
          + "are the rest: 1 - insertFraction), got " + deleteFraction);
    }
    if (kind == DsKind.TREE && deleteFraction != 0) {
      throw new IllegalArgumentException("deleteFraction must be 0 for the tree (insert and "
          + "lookup only, as in Cederman's benchmark), got " + deleteFraction);
    }
    if (insertFraction + deleteFraction > 1.0) {
      throw new IllegalArgumentException("insertFraction + deleteFraction must be at most 1, got "
          + insertFraction + " + " + deleteFraction);
    }
    ValueChecks.inRange("maxWork (local work iterations)", maxWork, 0, MAX_WORK);
    int maxLevels = kind == DsKind.SKIPLIST ? MAX_LEVELS : 1;
    if (levels < 1 || levels > maxLevels) {
      throw new IllegalArgumentException("levels must be in 1.." + maxLevels + " for the "
          + kind.label() + ", got " + levels);
    }
    int maxPool = kind.keyedNodes() ? keyRange : MAX_POOL;
    if (pool < 0 || pool > maxPool) {
      throw new IllegalArgumentException("pool must be in 0.." + maxPool + (kind.keyedNodes()
          ? " (the " + kind.label() + " keeps one node slot per key)" : "") + " (0: what the "
          + "batch needs), got " + pool);
    }
    TxBatch.checkThreads(threadsPerBlock, blocks);
    long least = DsState.minimumPool(kind, keyRange, initialEntries);
    if (pool != 0 && pool < least) {
      throw new IllegalArgumentException("pool must hold the " + initialEntries + " initial "
          + "entries: at least " + least + " nodes for the " + kind.label() + ", got " + pool);
    }
  }

  /**
   * A builder; the structure must be given. The other defaults: 1,024 keys, an empty structure,
   * the pool the batch needs, the {@code gstm bench-ds} batch (65,536 transactions on 64 blocks
   * of 256 threads, seed 42), half of them inserts (enqueues), the rest lookups (dequeues for
   * the queue), no local work, 1 level.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this configuration's values, to derive another. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.kind = kind;
    b.keyRange = keyRange;
    b.initialEntries = initialEntries;
    b.pool = pool;
    b.transactions = transactions;
    b.insertFraction = insertFraction;
    b.deleteFraction = deleteFraction;
    b.maxWork = maxWork;
    b.levels = levels;
    b.threadsPerBlock = threadsPerBlock;
    b.blocks = blocks;
    b.seed = seed;
    return b;
  }

  public DsKind kind() {
    return kind;
  }

  public int keyRange() {
    return keyRange;
  }

  public int initialEntries() {
    return initialEntries;
  }

  public int pool() {
    return pool;
  }

  public int transactions() {
    return transactions;
  }

  public double insertFraction() {
    return insertFraction;
  }

  public double deleteFraction() {
    return deleteFraction;
  }

  public int maxWork() {
    return maxWork;
  }

  public int levels() {
    return levels;
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

  /**
   * Refuses an algorithm this batch cannot run on, naming the parameter and the limit: CSMV
   * updates write at most 8 words, so a skip list on CSMV has at most 4 levels.
   */
  public void checkAlgorithm(Algorithm algorithm) {
    if (algorithm.isCsmv() && kind == DsKind.SKIPLIST && levels > MAX_CSMV_LEVELS) {
      throw new IllegalArgumentException("levels must be at most " + MAX_CSMV_LEVELS + " for a "
          + "skip list on " + algorithm.label() + " (an insert writes 2 words a level; CSMV "
          + "updates write at most 8), got " + levels);
    }
  }

  /**
   * Full contention: no local work, a small structure over a small key range (the whole batch
   * fights over a few words near the root, the ends of the queue, or few keys per bucket).
   */
  public static DsConfig fullContention(DsKind kind, int transactions, int threadsPerBlock,
      int blocks, long seed) {
    return defaults(kind, true, transactions, threadsPerBlock, blocks, seed);
  }

  /**
   * Low contention: local work between transactions (Cederman's setting) and the widest key
   * range the structure allows here.
   */
  public static DsConfig lowContention(DsKind kind, int transactions, int threadsPerBlock,
      int blocks, long seed) {
    return defaults(kind, false, transactions, threadsPerBlock, blocks, seed);
  }

  private static DsConfig defaults(DsKind kind, boolean full, int transactions,
      int threadsPerBlock, int blocks, long seed) {
    int work = full ? 0 : 256;
    return switch (kind) {
      case QUEUE -> DsConfig.builder().kind(kind).keyRange(1).initialEntries(full ? 16 : 256)
          .pool(0).transactions(transactions).insertFraction(0.5).deleteFraction(0).maxWork(work)
          .levels(1).grid(threadsPerBlock, blocks).seed(seed).build();
      // Low: 768 keys, chains of at most 6, so the sets (16 words) stay in registers on the GPU.
      case HASHMAP -> DsConfig.builder().kind(kind).keyRange(full ? 256 : 768)
          .initialEntries(full ? 128 : 384).pool(0).transactions(transactions)
          .insertFraction(1 / 3.0).deleteFraction(1 / 3.0).maxWork(work).levels(1)
          .grid(threadsPerBlock, blocks).seed(seed).build();
      case TREE -> DsConfig.builder().kind(kind).keyRange(full ? 64 : 4096)
          .initialEntries(full ? 15 : 1023).pool(0).transactions(transactions).insertFraction(0.5)
          .deleteFraction(0).maxWork(work).levels(1).grid(threadsPerBlock, blocks).seed(seed)
          .build();
      // Low: the JPDC paper's 5,000 initial entries over 5 levels (half the key range).
      case SKIPLIST -> DsConfig.builder().kind(kind).keyRange(full ? 64 : 10_000)
          .initialEntries(full ? 32 : 5_000).pool(0).transactions(transactions)
          .insertFraction(1 / 3.0).deleteFraction(1 / 3.0).maxWork(work).levels(MAX_LEVELS)
          .grid(threadsPerBlock, blocks).seed(seed).build();
    };
  }

  /** A copy with another seed. */
  public DsConfig withSeed(long value) {
    return toBuilder().seed(value).build();
  }

  /** A copy with another number of transactions. */
  public DsConfig withTransactions(int value) {
    return toBuilder().transactions(value).build();
  }

  /** A copy on another grid. */
  public DsConfig withGrid(int tpb, int b) {
    return toBuilder().grid(tpb, b).build();
  }

  /** A copy with another amount of local work (0: transactions back to back). */
  public DsConfig withMaxWork(int value) {
    return toBuilder().maxWork(value).build();
  }

  /** A copy with another number of skip-list levels. */
  public DsConfig withLevels(int value) {
    return toBuilder().levels(value).build();
  }

  /** A copy that {@code algorithm} can run: a skip list on CSMV at most 4 levels. */
  public DsConfig runnableOn(Algorithm algorithm) {
    return algorithm.isCsmv() && levels > MAX_CSMV_LEVELS ? withLevels(MAX_CSMV_LEVELS) : this;
  }

  /** A copy with another pool size (0: what the batch needs). */
  public DsConfig withPool(int value) {
    return toBuilder().pool(value).build();
  }

  /** The longest bucket chain: keys {@code b, b + 128, ...} below the key range. */
  public int hashChainBound() {
    return (keyRange + BUCKETS - 1) / BUCKETS;
  }

  /**
   * Words a transaction's set holds: the smallest program capacity for the structure's walks.
   * Hash map: 2 per chain step and 4 more. Tree: the deepest an insert can go from the balanced
   * initial tree (its depth and the most keys that fit between two initial keys), and 2 more,
   * if that fits. Skip list: 64, the walk of 5,000 entries over 5 levels with p = 1/4 takes 22
   * steps on average and rarely more than 50.
   */
  public int setWords() {
    return switch (kind) {
      case QUEUE -> ProgramBinding.capacityFor(4);
      case HASHMAP -> ProgramBinding.capacityFor(2L * hashChainBound() + 4);
      case TREE -> ProgramBinding.capacityFor(Math.min(MAX_SET_WORDS, treeDepthBound() + 2L));
      case SKIPLIST -> MAX_SET_WORDS;
    };
  }

  /**
   * Steps a tree or skip-list walk may take: what the {@link #setWords()} leave after the
   * writes (tree: the root and the new link; skip list: 2 words a level).
   */
  public int walkBound() {
    return kind == DsKind.SKIPLIST ? setWords() - 2 * levels : setWords() - 2;
  }

  /**
   * 1/p of the skip list's levels: the smallest power of 2 from 4 (Pugh's p = 1/4) that leaves
   * about 32 entries or fewer on the top level, so that a walk stays within
   * {@link #walkBound()}. With p = 1/2 a walk over 5,000 entries and 5 levels takes about 160
   * steps; with 1/4, 22 on average; 4 levels (CSMV) take 1/8.
   */
  public int skipBranching() {
    long entries = Math.max(initialEntries, keyRange / 2);
    int b = 4;
    while (b < (1 << 20) && entries > 32 * Math.pow(b, levels - 1)) {
      b *= 2;
    }
    return b;
  }

  /**
   * The deepest a node can be, inserts in any order after the balanced initial tree: a walk of
   * this many steps always reaches a key or an empty child.
   */
  public long treeDepthBound() {
    int n0 = initialEntries;
    long height = 64 - Long.numberOfLeadingZeros(n0); // levels of the balanced initial tree
    long gap = 0; // most keys that can go between two initial keys (or past the ends)
    long last = -1;
    for (int i = 0; i <= n0; i++) {
      long k = i < n0 ? (i + 1L) * keyRange / (n0 + 1L) : keyRange;
      gap = Math.max(gap, k - last - 1);
      last = k;
    }
    return height + gap;
  }

  // Value semantics, as when this was a record: configurations name test cases and results.
  @Override
  public boolean equals(Object other) {
    return other instanceof DsConfig o
        && kind == o.kind
        && keyRange == o.keyRange
        && initialEntries == o.initialEntries
        && pool == o.pool
        && transactions == o.transactions
        && Double.compare(insertFraction, o.insertFraction) == 0
        && Double.compare(deleteFraction, o.deleteFraction) == 0
        && maxWork == o.maxWork
        && levels == o.levels
        && threadsPerBlock == o.threadsPerBlock
        && blocks == o.blocks
        && seed == o.seed;
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, keyRange, initialEntries, pool, transactions, insertFraction,
        deleteFraction, maxWork, levels, threadsPerBlock, blocks, seed);
  }

  @Override
  public String toString() {
    return "DsConfig[kind=" + kind
        + ", keyRange=" + keyRange
        + ", initialEntries=" + initialEntries
        + ", pool=" + pool
        + ", transactions=" + transactions
        + ", insertFraction=" + insertFraction
        + ", deleteFraction=" + deleteFraction
        + ", maxWork=" + maxWork
        + ", levels=" + levels
        + ", threadsPerBlock=" + threadsPerBlock
        + ", blocks=" + blocks
        + ", seed=" + seed + "]";
  }

  /** Named settings of a {@link DsConfig}; {@link #build} checks them. */
  public static final class Builder {
    private DsKind kind;
    private int keyRange = 1024;
    private int initialEntries = 0;
    private int pool = 0;
    private int transactions = 65_536;
    private double insertFraction = 0.5;
    private double deleteFraction = 0;
    private int maxWork = 0;
    private int levels = 1;
    private int threadsPerBlock = 256;
    private int blocks = 64;
    private long seed = 42;

    private Builder() {}

    /** The structure. */
    public Builder kind(DsKind value) {
      kind = value;
      return this;
    }

    /** Keys are drawn from {@code 0..keyRange-1} (queue: unused, at least 1). */
    public Builder keyRange(int value) {
      keyRange = value;
      return this;
    }

    /** Entries in the structure before the batch. */
    public Builder initialEntries(int value) {
      initialEntries = value;
      return this;
    }

    /** Nodes in the pool, 0 for what the batch needs. */
    public Builder pool(int value) {
      pool = value;
      return this;
    }

    /** Transactions in the batch. */
    public Builder transactions(int value) {
      transactions = value;
      return this;
    }

    /** Share of enqueues (queue) or inserts. */
    public Builder insertFraction(double value) {
      insertFraction = value;
      return this;
    }

    /** Share of deletes (hash map, skip list); 0 for the queue and the tree. */
    public Builder deleteFraction(double value) {
      deleteFraction = value;
      return this;
    }

    /** Local work before a transaction: iterations drawn from {@code 0..maxWork}. */
    public Builder maxWork(int value) {
      maxWork = value;
      return this;
    }

    /** Skip-list levels, 1..{@link #MAX_LEVELS} (other structures: 1). */
    public Builder levels(int value) {
      levels = value;
      return this;
    }

    /** Seed of the initial contents and of the batch. */
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
    public DsConfig build() {
      return new DsConfig(this);
    }
  }
}
