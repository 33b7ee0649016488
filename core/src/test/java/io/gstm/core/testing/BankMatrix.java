package io.gstm.core.testing;

import io.gstm.core.workload.bank.BankConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The seeded randomized bank configurations that both engines run: many seeds, sizes, contention
 * levels (from 8 accounts, where nearly every pair of transactions conflicts, to 100k), lock
 * coverages and read-only shares. The JVM tests and the GPU tests draw from the same list, so the
 * same batches run on both.
 */
public final class BankMatrix {
  private BankMatrix() {}

  /** {@code count} configurations derived from {@code seed}, small enough for history mode. */
  public static List<BankConfig> configs(long seed, int count) {
    int[] accounts = {8, 32, 256, 4_096, 100_000};
    int[] ks = {1, 2, 3, 4, 8};
    int[] coverages = {1, 1, 2, 4, 64};
    double[] readOnly = {0, 0.2, 0.5, 0.9};
    int[] tpb = {32, 64, 128, 256};
    SplittableRandom rnd = new SplittableRandom(seed);
    List<BankConfig> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int a = accounts[rnd.nextInt(accounts.length)];
      int k = Math.min(a, ks[rnd.nextInt(ks.length)]);
      int threadsPerBlock = tpb[rnd.nextInt(tpb.length)];
      int blocks = 1 + rnd.nextInt(8);
      int txPerThread = 1 + rnd.nextInt(6);
      out.add(BankConfig.builder().accounts(a).k(k).readOnly(readOnly[rnd.nextInt(readOnly.length)])
          .lockCoverage(coverages[rnd.nextInt(coverages.length)]).grid(threadsPerBlock, blocks)
          .txPerThread(txPerThread).seed(rnd.nextLong()).build());
    }
    return out;
  }
}
