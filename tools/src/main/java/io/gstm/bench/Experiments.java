package io.gstm.bench;

import java.util.List;

/** Every experiment {@code gstm bench} runs, in the order {@code all} runs them. */
public final class Experiments {
  private Experiments() {}

  private static final List<Experiment> ALL = List.of(
      new LimitsExperiment(),
      new PrStmBankExperiment(PrStmBankExperiment.SIZE),
      new PrStmBankExperiment(PrStmBankExperiment.COVERAGE),
      new PrStmBankExperiment(PrStmBankExperiment.THREADS),
      new SemanticExperiment(SemanticExperiment.RATIO),
      new SemanticExperiment(SemanticExperiment.THREADS),
      new SemanticExperiment(SemanticExperiment.COVERAGE),
      new JpdcExperiment(JpdcExperiment.THREADS),
      new JpdcExperiment(JpdcExperiment.COVERAGE),
      new CsmvExperiment(CsmvExperiment.Figure.READ_ONLY),
      new CsmvExperiment(CsmvExperiment.Figure.VERSIONS),
      new CsmvExperiment(CsmvExperiment.Figure.MEMCACHED),
      new CedermanDsExperiment(),
      new GraphExperiment(GraphExperiment.THREADS),
      new GraphExperiment(GraphExperiment.COVERAGE),
      new KMeansExperiment());

  public static List<Experiment> all() {
    return ALL;
  }

  /** The experiment called {@code name}; an unknown name is an error that lists the known. */
  public static Experiment byName(String name) {
    for (Experiment e : ALL) {
      if (e.name().equals(name)) {
        return e;
      }
    }
    throw new IllegalArgumentException("experiment: unknown experiment '" + name
        + "', expected all or one of " + ALL.stream().map(Experiment::name).toList());
  }
}
