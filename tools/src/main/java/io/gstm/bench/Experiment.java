package io.gstm.bench;

import io.gstm.core.engine.Engine;
import java.util.List;

/**
 * One figure or table of a paper that gstm reproduces: a sweep of points, each measured on an
 * engine and verified, that fills a {@link ResultTable} drawn as its {@link Plot}.
 */
public interface Experiment {

  /**
   * What an experiment is, apart from its sweep.
   *
   * @param name the name {@code gstm bench} takes, e.g. "prstm-size"
   * @param description what it measures and which figure of which paper it stands for
   * @param columns its table's columns
   * @param plot how its table is drawn
   */
  record About(String name, String description, List<String> columns, Plot plot) {}

  About about();

  default String name() {
    return about().name();
  }

  default String description() {
    return about().description();
  }

  default List<String> columns() {
    return about().columns();
  }

  default Plot plot() {
    return about().plot();
  }

  /**
   * The sweep at {@code scale} on {@code engine}, one step per point (the progress bar counts
   * them). Steps run in order and add rows to the table they are given.
   */
  List<Step> steps(Engine engine, Scale scale);

  /** Measures one point of a sweep. */
  interface Step {
    /** Adds this point's row(s); a batch that fails its verifier is a row saying so. */
    void run(ResultTable out);
  }
}
