package io.gstm.spark.exec;

import java.util.List;

/**
 * A job's report whose placement names the engines its tasks used: they read directly, as
 * {@code report.engines()} for {@code report.placement().engines()}.
 */
public interface WithEngines {
  /** Where the tasks ran. */
  Placement placement();

  /** The engines the tasks used ({@link Placement#engines}). */
  default List<String> engines() {
    return placement().engines();
  }

  /** True when some task fell back to the JVM engine for want of a GPU. */
  default boolean fellBackToJvm() {
    return placement().fellBackToJvm();
  }

  /** The part of a report's placement that every job has. */
  interface Placement {
    /**
     * The engines the tasks used, e.g. "jvm (no usable GPU 0 ..., fell back to the JVM engine)"
     * or "cuda (GPU 0 from TaskContext resources)".
     */
    List<String> engines();

    /** True when some task fell back to the JVM engine for want of a GPU. */
    boolean fellBackToJvm();
  }
}
