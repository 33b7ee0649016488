package io.gstm.core.testing;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A batch built to starve under static priorities: slow read-only audits of 16 hot words (local
 * work between reads) among many one-word increments of the same words. An audit's invisible
 * reads are invalidated by any increment that commits meanwhile, and its priority never helps
 * (read-only transactions take no locks), so without the urgent mode it loses attempt after
 * attempt. The audits sit on the highest thread ids, the ones the paper's rule ranks last.
 */
public record StarvationCase(ProgramResult result, long[] words, boolean[] isAudit) {
  public static final String PROGRAMS = """
      program audit(spin: int32)
          regions hot: int64
          outputs total: int64
      {
        var s: int64 = 0;
        var x: int32 = 1;
        for i in 0 .. 16 {
          s = s + hot[i];
          for j in 0 .. spin max 100000 { x = wrapping_add(wrapping_mul(x, 1103515245), 12345); }
        }
        total = s + int64(x & 0);
      }

      program bump(word: int32)
          regions hot: int64
      {
        hot[word] = hot[word] + 1;
      }
      """;

  /**
   * Runs {@code increments} bumps and {@code audits} audits (at most one per thread) on a fresh
   * store of {@code engine}.
   */
  public static StarvationCase run(Engine engine, int increments, int audits, int spin,
      int threadsPerBlock, int blocks, RunOptions options) {
    int n = increments + audits;
    String[] names = new String[n];
    int[] word = new int[n];
    int[] spins = new int[n];
    SplittableRandom random = new SplittableRandom(42);
    int threads = threadsPerBlock * blocks;
    for (int t = 0; t < n; t++) {
      // Audits are the first transactions of the highest thread ids: they start while every
      // other thread increments, and rank last under the paper's rule.
      boolean audit = t < threads && t >= threads - audits;
      names[t] = audit ? "audit" : "bump";
      word[t] = random.nextInt(16);
      spins[t] = audit ? spin : 0;
    }
    ProgramBatch batch = ProgramBatch.builder(ProgramSet.parse(PROGRAMS)).types(names)
        .int32("word", word).int32("spin", spins).grid(threadsPerBlock, blocks).build();
    try (TxStore store = engine.createStore(
        StoreLayout.of(new RegionSpec("hot", RegionType.INT64, 16, 1)))) {
      ProgramResult r = engine.run(store, batch, options);
      boolean[] isAudit = new boolean[n];
      for (int t = 0; t < n; t++) {
        isAudit[t] = names[t].equals("audit");
      }
      return new StarvationCase(r, store.readInt64(0), isAudit);
    }
  }

  /** Every increment is in the store exactly once per committed bump. */
  public boolean conserved() {
    long committedBumps = 0;
    for (int t = 0; t < isAudit.length; t++) {
      committedBumps += !isAudit[t] && result.outcome(t) == Outcome.COMMITTED ? 1 : 0;
    }
    return Arrays.stream(words).sum() == committedBumps;
  }

  /** Committed audits saw a total no larger than the final one (they ran before its end). */
  public boolean auditsConsistent() {
    long end = Arrays.stream(words).sum();
    for (int t = 0; t < isAudit.length; t++) {
      if (isAudit[t] && result.outcome(t) == Outcome.COMMITTED
          && result.outputLong(t, "total") > end) {
        return false;
      }
    }
    return true;
  }
}
