package io.gstm.core.workload.memcached;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.workload.TxContext;
import io.gstm.core.workload.Verdict;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The cache's exact verifier for CSMV runs: replays the committed PUTs sequentially in commit
 * timestamp order on a reference cache; every committed GET must return what the reference held
 * at its snapshot timestamp, and the final store must equal the reference word for word.
 */
public final class MemcachedVerifier {
  private static final int MAX_REPORTED = 10;

  private MemcachedVerifier() {}

  /** Sequential reference over plain arrays. */
  private static final class Reference implements TxContext {
    final int[][] regions;

    Reference(int[][] initial) {
      regions = new int[initial.length][];
      for (int r = 0; r < initial.length; r++) {
        regions[r] = initial[r].clone();
      }
    }

    @Override
    public long read(int region, int index) {
      return regions[region][index];
    }

    @Override
    public long readShared(int region, int index) {
      return regions[region][index];
    }

    @Override
    public void write(int region, int index, long bits) {
      regions[region][index] = (int) bits;
    }

    @Override
    public void semanticConflict() {
      throw new IllegalStateException("memcached has no semantic conflicts");
    }

    @Override
    public void end(Outcome outcome) {
      throw new IllegalStateException("memcached transactions do not end early");
    }
  }

  /**
   * @param initial the regions before the batch
   * @param result a CSMV result (with timestamps)
   * @param finalState the regions after the batch
   */
  public static Verdict verify(int[][] initial, TxBatch batch, BatchResult result,
      int[][] finalState) {
    if (result.stamps().length != batch.txCount()) {
      throw new IllegalArgumentException("result: the memcached verifier needs CSMV timestamps");
    }
    List<String> problems = new ArrayList<>();
    List<Integer> puts = new ArrayList<>();
    List<Integer> gets = new ArrayList<>();
    for (int t = 0; t < batch.txCount(); t++) {
      if (result.outcome(t) != Outcome.COMMITTED) {
        if (problems.size() < MAX_REPORTED) {
          problems.add("transaction " + t + " ended " + result.outcome(t));
        }
        continue;
      }
      (MemcachedWorkload.Type.PUT.is(batch.types()[t]) ? puts : gets).add(t);
    }
    Comparator<Integer> byStamp = Comparator.comparingLong(t -> result.stamps()[t]);
    puts.sort(byStamp);
    gets.sort(byStamp);
    for (int i = 1; i < puts.size(); i++) {
      if (result.stamps()[puts.get(i)] == result.stamps()[puts.get(i - 1)]) {
        problems.add("PUTs " + puts.get(i - 1) + " and " + puts.get(i)
            + " share commit timestamp " + result.stamps()[puts.get(i)]);
        break;
      }
    }
    Reference ref = new Reference(initial);
    int g = 0;
    for (int i = 0; i <= puts.size(); i++) {
      long upTo = i < puts.size() ? result.stamps()[puts.get(i)] : Long.MAX_VALUE;
      // GETs whose snapshot precedes this PUT see the reference as it is now.
      while (g < gets.size() && result.stamps()[gets.get(g)] < upTo) {
        int t = gets.get(g++);
        long want = MemcachedWorkload.INSTANCE.run(ref, batch, t);
        if (want != result.results()[t] && problems.size() < MAX_REPORTED) {
          problems.add("GET " + t + " (key " + batch.columns()[0][t] + ", snapshot "
              + result.stamps()[t] + ") returned " + result.results()[t] + ", expected " + want);
        }
      }
      if (i < puts.size()) {
        MemcachedWorkload.INSTANCE.run(ref, batch, puts.get(i));
      }
    }
    for (int r = 0; r < ref.regions.length; r++) {
      if (!Arrays.equals(ref.regions[r], finalState[r])) {
        for (int i = 0; i < ref.regions[r].length && problems.size() < MAX_REPORTED; i++) {
          if (ref.regions[r][i] != finalState[r][i]) {
            problems.add("region " + r + " word " + i + " is " + finalState[r][i]
                + ", the serial replay gives " + ref.regions[r][i]);
          }
        }
      }
    }
    return new Verdict(problems.isEmpty(), List.copyOf(problems));
  }
}
