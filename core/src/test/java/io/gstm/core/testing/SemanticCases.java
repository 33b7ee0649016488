package io.gstm.core.testing;

import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.batch.TxBatches;
import io.gstm.core.workload.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The seeded cases of the semantic workloads' tests (bank and vacation, on either engine): every
 * policy, each batch as generated and pre-sorted.
 */
public final class SemanticCases {
  private SemanticCases() {}

  /** Makes the configuration of one case. */
  @FunctionalInterface
  public interface Config {
    Object of(double semanticRatio, int size, long seed);
  }

  /**
   * {@code (config, policy, presort)} for each policy, unsorted then pre-sorted, for each ratio
   * and size: the configurations from consecutive seeds, starting at {@code firstSeed}.
   */
  public static Stream<Arguments> cases(long firstSeed, double[] ratios, int[] sizes,
      Config config) {
    List<Arguments> out = new ArrayList<>();
    long seed = firstSeed;
    for (SemanticPolicy policy : SemanticPolicy.values()) {
      for (boolean presort : new boolean[] {false, true}) {
        for (double ratio : ratios) {
          for (int size : sizes) {
            out.add(Arguments.of(config.of(ratio, size, seed++), policy, presort));
          }
        }
      }
    }
    return out.stream();
  }

  /** {@code batch}, or where {@code presort}, sorted by {@code workload}'s ordering tags. */
  public static TxBatch presortedIf(boolean presort, TxBatch batch, Workload workload) {
    return presort ? TxBatches.presort(batch, workload.orderingTags()) : batch;
  }
}
