package io.gstm.spark.exec;

import io.gstm.core.engine.Engine;
import io.gstm.core.engine.GpuUnavailableReason;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The engine one Spark task uses, leased from {@link ExecutorEngines}: the executor's GPU engine
 * (behind its semaphore) or a JVM engine of its own. {@link #close()} gives it back; when the
 * lease was taken inside a task, Spark's task-completion listener also closes it, so a failing
 * task never keeps a GPU permit. Do not close {@link #engine()} itself.
 */
public final class TaskEngine implements AutoCloseable {
  private final Engine engine;
  private final boolean gpu;
  private final String why;
  private final GpuUnavailableReason gpuUnavailable;
  private final Runnable release;
  private final AtomicBoolean closed = new AtomicBoolean();

  TaskEngine(Engine engine, boolean gpu, String why, GpuUnavailableReason gpuUnavailable,
      Runnable release) {
    this.engine = engine;
    this.gpu = gpu;
    this.why = why;
    this.gpuUnavailable = gpuUnavailable;
    this.release = release;
  }

  /** The engine, valid until this lease is closed; owned by the executor, never closed here. */
  public Engine engine() {
    if (closed.get()) {
      throw new IllegalStateException("task engine lease is closed");
    }
    return engine;
  }

  /** True on a GPU engine. */
  public boolean gpu() {
    return gpu;
  }

  /** Why this engine was picked, e.g. "GPU 0 from TaskContext resources" or the fallback reason. */
  public String reason() {
    return why;
  }

  /** Why the GPU was not used when this lease fell back to a JVM engine; null otherwise. */
  public GpuUnavailableReason gpuUnavailable() {
    return gpuUnavailable;
  }

  /** Gives the engine back (releases the GPU permit); a second close does nothing. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      release.run();
    }
  }
}
