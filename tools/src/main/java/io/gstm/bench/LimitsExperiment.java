package io.gstm.bench;

import io.gstm.core.engine.Engine;
import io.gstm.core.engine.LimitsReport;
import java.util.List;

/** {@code limits}: the random-access bounds every STM figure is a ratio to. */
final class LimitsExperiment implements Experiment {

  @Override
  public About about() {
    return new About("limits",
        "Random read+CAS, atomicAdd and dependent loads per second on an array of 32-bit "
            + "words: the bound each STM throughput is compared with.",
        List.of("device", "words", "operation", "per_s"),
        Plot.bars("Random-access bounds", "operation", "per_s"));
  }

  @Override
  public List<Step> steps(Engine engine, Scale scale) {
    int words = scale.pick(1 << 16, 1 << 20, 2_621_440);
    return List.of(out -> {
      LimitsReport r = engine.probeLimits(words);
      out.add(r.device(), words, "read+CAS", r.readCasPerSecond());
      out.add(r.device(), words, "atomicAdd", r.atomicAddPerSecond());
      out.add(r.device(), words, "dependent load", r.dependentLoadPerSecond());
    });
  }
}
