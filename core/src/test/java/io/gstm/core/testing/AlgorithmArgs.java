package io.gstm.core.testing;

import io.gstm.core.store.Algorithm;
import org.junit.jupiter.api.Named;

/** Algorithms as arguments of parameterized tests: shown by their labels, passed as themselves. */
public final class AlgorithmArgs {
  private AlgorithmArgs() {}

  /** {@code algorithm}, named by its label (such as "blocking:linear"). */
  public static Named<Algorithm> named(Algorithm algorithm) {
    return Named.of(algorithm.label(), algorithm);
  }
}
