package io.gstm.core.testing;

import java.util.function.LongUnaryOperator;

/** Sums over runs of consecutive seeds, for events that no single seeded run is sure to show. */
public final class Seeds {
  private Seeds() {}

  /** The sum of {@code perSeed} over the seeds {@code 0 .. count - 1}. */
  public static long sum(int count, LongUnaryOperator perSeed) {
    long sum = 0;
    for (long seed = 0; seed < count; seed++) {
      sum += perSeed.applyAsLong(seed);
    }
    return sum;
  }

  /**
   * The same, stopping at the first seed whose value is positive: for events that need workers to
   * overlap, which a loaded machine may deny to any one run, so that a generous {@code max} costs
   * time only where the event is rare.
   */
  public static long sumUntilPositive(int max, LongUnaryOperator perSeed) {
    long sum = 0;
    for (long seed = 0; seed < max && sum == 0; seed++) {
      sum += perSeed.applyAsLong(seed);
    }
    return sum;
  }
}
