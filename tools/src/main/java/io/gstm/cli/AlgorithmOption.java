package io.gstm.cli;

import io.gstm.core.store.Algorithm;
import io.gstm.core.store.Backoff;
import io.gstm.core.store.CsmvVariant;
import java.util.ArrayList;
import java.util.List;

/**
 * The algorithm names the commands take: prstm, gpu-stm, a CSMV variant's label, blocking or
 * obstruction-free (each optionally followed by ":" and a backoff, e.g.
 * {@code blocking:linear} or {@code obstruction-free:exponential:100:20000}).
 */
final class AlgorithmOption {
  private AlgorithmOption() {}

  /** {@code value} as an algorithm; an unknown name is an error naming {@code option}. */
  static Algorithm parse(String option, String value) {
    String name = value == null ? "" : value.trim();
    if (name.equalsIgnoreCase("prstm")) {
      return Algorithm.prStm();
    }
    if (name.equalsIgnoreCase("gpu-stm")) {
      return Algorithm.gpuStm();
    }
    int colon = name.indexOf(':');
    String base = colon < 0 ? name : name.substring(0, colon).trim();
    Algorithm cederman = base.equalsIgnoreCase("blocking") ? Algorithm.blocking()
        : base.equalsIgnoreCase("obstruction-free") ? Algorithm.obstructionFree() : null;
    if (cederman != null) {
      return colon < 0 ? cederman
          : cederman.withBackoff(Backoff.parse(option, name.substring(colon + 1)));
    }
    for (CsmvVariant v : CsmvVariant.values()) {
      if (v.label().equalsIgnoreCase(name) || v.name().equalsIgnoreCase(name)) {
        return Algorithm.csmv(Algorithm.DEFAULT_VERSIONS).withVariant(v);
      }
    }
    List<String> known = new ArrayList<>(List.of("prstm", "gpu-stm"));
    for (CsmvVariant v : CsmvVariant.values()) {
      known.add(v.label());
    }
    known.add("blocking[:backoff]");
    known.add("obstruction-free[:backoff]");
    throw new IllegalArgumentException(option + ": unknown algorithm '" + value + "', known: "
        + String.join(", ", known));
  }
}
