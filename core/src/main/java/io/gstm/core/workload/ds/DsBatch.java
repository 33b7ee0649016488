package io.gstm.core.workload.ds;

import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.StoreLayout;
import java.util.SplittableRandom;

/**
 * A seeded data-structure batch: the store layout, the initial contents and the transactions
 * (program batch and the columns the verifier needs). Seed {@code s} always draws the same one.
 *
 * @param columns per transaction, what the verifier needs
 * @param pool nodes in the pool (the config's, or what the batch needs)
 */
public record DsBatch(DsConfig cfg, StoreLayout layout, long[][] initial, ProgramSet programs,
    ProgramBatch batch, Columns columns, int pool) {

  /**
   * The batch's transactions, one entry each, as the verifier reads them.
   *
   * @param op the program's type code ({@link DsKind#operations()} order)
   * @param key the key (queue: unused)
   * @param node the pre-assigned pool node of an enqueue or hash-map insert, else -1
   * @param val the value an enqueue puts (unique in the batch and the initial queue)
   * @param height the level count of a skip-list insert, else 1
   */
  public record Columns(int[] op, int[] key, int[] node, int[] val, int[] height) {
    /** These columns in the order {@code order} (entry i is old entry order[i]). */
    Columns permute(int[] order) {
      return new Columns(DsBatch.permute(op, order), DsBatch.permute(key, order),
          DsBatch.permute(node, order), DsBatch.permute(val, order),
          DsBatch.permute(height, order));
    }
  }

  /** Per transaction, the program's type code. */
  public int[] op() {
    return columns.op();
  }

  /** Per transaction, the key. */
  public int[] key() {
    return columns.key();
  }

  /** Per transaction, the pre-assigned pool node, else -1. */
  public int[] node() {
    return columns.node();
  }

  /** Per transaction, the value an enqueue puts. */
  public int[] val() {
    return columns.val();
  }

  /** Per transaction, the level count of a skip-list insert, else 1. */
  public int[] height() {
    return columns.height();
  }

  /** Draws the batch of {@code cfg}. */
  public static DsBatch of(DsConfig cfg) {
    int n = cfg.transactions();
    int[] op = new int[n];
    int[] key = new int[n];
    int[] node = new int[n];
    int[] val = new int[n];
    int[] height = new int[n];
    int[] work = new int[n];
    SplittableRandom rnd = new SplittableRandom(cfg.seed() ^ 0x5DEECE66DL);
    // Nodes 0..initial-1 hold the initial contents (the queue's dummy and entries: 0..initial).
    long nextNode = cfg.kind() == DsKind.QUEUE ? cfg.initialEntries() + 1L : cfg.initialEntries();
    for (int t = 0; t < n; t++) {
      double u = rnd.nextDouble();
      op[t] = u < cfg.insertFraction() ? 0 : u < cfg.insertFraction() + cfg.deleteFraction()
          || cfg.kind() == DsKind.QUEUE ? 1 : cfg.kind().operations().length - 1;
      key[t] = rnd.nextInt(cfg.keyRange());
      node[t] = -1;
      height[t] = 1;
      val[t] = cfg.initialEntries() + t;
      boolean takesNode = op[t] == 0 && !cfg.kind().keyedNodes();
      if (takesNode) {
        node[t] = (int) Math.min(Integer.MAX_VALUE, nextNode++);
      }
      if (cfg.kind() == DsKind.SKIPLIST && op[t] == 0) {
        height[t] = drawHeight(rnd, cfg.levels(), cfg.skipBranching());
      }
      work[t] = cfg.maxWork() == 0 ? 0 : rnd.nextInt(cfg.maxWork() + 1);
    }
    int pool = cfg.pool() != 0 ? cfg.pool() : cfg.kind().keyedNodes() ? cfg.keyRange()
        : (int) Math.min(DsConfig.MAX_POOL, Math.max(1, nextNode));
    ProgramSet programs = DsPrograms.set(cfg);
    ProgramBatch.Builder b = ProgramBatch.builder(programs).types(op).int32("key", key)
        .int32("node", node).int32("val", val).int32("height", height)
        .grid(cfg.threadsPerBlock(), cfg.blocks());
    if (cfg.maxWork() > 0) {
      b.int32("work", work);
    }
    StoreLayout layout = DsState.layout(cfg, pool);
    long[][] initial = DsState.initial(cfg, pool, new SplittableRandom(cfg.seed()));
    return new DsBatch(cfg, layout, initial, programs, b.build(),
        new Columns(op, key, node, val, height), pool);
  }

  /** A node's level count, at most {@code levels}: each further level with p = 1/branching. */
  static int drawHeight(SplittableRandom rnd, int levels, int branching) {
    int h = 1;
    while (h < levels && rnd.nextInt(branching) == 0) {
      h++;
    }
    return h;
  }

  public int txCount() {
    return columns.op().length;
  }

  /**
   * The same transactions stably sorted by descending ordering tag (inserts and enqueues, tag 1,
   * first: the JPDC paper's pre-sorting, {@link ProgramBatch#presort}), every per-transaction
   * column moved with them so that the verifier still matches each transaction to its record.
   */
  public DsBatch presorted() {
    ProgramBatch.Sorted s = batch.presort();
    int[] order = s.order();
    return new DsBatch(cfg, layout, initial, programs, s.batch(), columns.permute(order), pool);
  }

  /**
   * The same batch with {@code coverage} consecutive words of every region under one lock (the
   * JPDC paper's hash number; the structures' own layout has a lock per word).
   */
  public DsBatch withLockCoverage(int coverage) {
    if (coverage < 1) {
      throw new IllegalArgumentException("lockCoverage must be at least 1 word per lock, got "
          + coverage);
    }
    return new DsBatch(cfg, new StoreLayout(layout.regions().stream()
        .map(r -> new RegionSpec(r.name(), r.type(), r.length(), coverage)).toList()),
        initial, programs, batch, columns, pool);
  }

  private static int[] permute(int[] v, int[] order) {
    int[] out = new int[order.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = v[order[i]];
    }
    return out;
  }
}
