package io.gstm.cli;

import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvVariant;
import java.util.ArrayList;
import java.util.List;

/** The algorithm names the commands take: prstm, or a CSMV variant's label. */
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
    for (CsmvVariant v : CsmvVariant.values()) {
      if (v.label().equalsIgnoreCase(name) || v.name().equalsIgnoreCase(name)) {
        return Algorithm.csmv(Algorithm.DEFAULT_VERSIONS).withVariant(v);
      }
    }
    List<String> known = new ArrayList<>(List.of("prstm", "gpu-stm"));
    for (CsmvVariant v : CsmvVariant.values()) {
      known.add(v.label());
    }
    throw new IllegalArgumentException(option + ": unknown algorithm '" + value + "', known: "
        + String.join(", ", known));
  }
}
