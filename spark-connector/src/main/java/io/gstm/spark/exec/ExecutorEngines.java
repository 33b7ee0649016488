package io.gstm.spark.exec;

import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.cuda.CudaFatalException;
import io.gstm.core.engine.Engine;
import io.gstm.core.engine.EngineChoice;
import io.gstm.core.engine.GpuUnavailableException;
import io.gstm.core.engine.GpuUnavailableReason;
import io.gstm.core.engine.GstmException;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.resource.ResourceInformation;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.TaskFailureListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engines of one executor JVM. A GPU engine is opened lazily, once per device, shared by the
 * executor's tasks and closed at JVM shutdown; a semaphore of {@code spark.gstm.concurrentGpuTasks}
 * permits caps the tasks that use it at once, and each task's permit is released when the task
 * completes. The device is the task's {@code gpu} resource ({@code TaskContext.resources()}) when
 * Spark's scheduler assigned one, else {@code spark.gstm.deviceOrdinal}.
 *
 * <p>Without a usable GPU ({@code spark.gstm.engine=auto}) tasks run on JVM engines, logged once
 * per executor; every concurrently running task gets a JVM engine of its own (a JVM engine runs one
 * batch at a time), pooled for reuse. {@code spark.gstm.requireGpu=true} turns that fallback into
 * a {@link GpuUnavailableException}.
 *
 * <p>A task that fails with a {@link CudaFatalException} has lost the device's context for the
 * whole executor: every later lease of that device fails at once with the same message (no
 * fallback, since the state resident on it is gone), until the executor is restarted.
 */
public final class ExecutorEngines {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutorEngines.class);

  private static final Object LOCK = new Object();
  private static final Map<Integer, GpuSlot> GPUS = new HashMap<>();
  private static final Map<Integer, GpuFailure> GPU_FAILURES = new HashMap<>();
  /** Devices whose context a task lost, with the error it met. */
  private static final Map<Integer, String> LOST = new HashMap<>();
  private static final Map<Integer, ArrayDeque<JvmEngine>> IDLE_JVM = new HashMap<>();
  private static final List<Engine> ALL = new ArrayList<>();
  private static boolean fallbackLogged;
  private static boolean hookAdded;

  private record GpuSlot(CudaEngine engine, Semaphore permits) {}

  /** Why a device could not be opened, classified once per executor and device. */
  private record GpuFailure(GpuUnavailableReason reason, String message) {}

  private ExecutorEngines() {}

  /**
   * Leases an engine for the calling task. Inside a Spark task the lease is also closed on task
   * completion; elsewhere (driver-side tools, tests) the caller closes it.
   */
  public static TaskEngine acquire(GstmSettings settings) {
    return acquire(settings, null);
  }

  /**
   * As {@link #acquire(GstmSettings)}, preferring {@code preferred} among idle JVM engines (so that
   * state a task left on an engine, such as a resident graph, can be used again).
   */
  public static TaskEngine acquire(GstmSettings settings, Engine preferred) {
    TaskContext task = TaskContext.get();
    TaskEngine lease = settings.executors().engine() == EngineChoice.JVM
        ? jvm(settings, "JVM engine requested (spark.gstm.engine=jvm)", null, preferred)
        : gpuOrFallback(settings, task, preferred);
    if (task != null) {
      task.addTaskCompletionListener((TaskCompletionListener) ctx -> lease.close());
    }
    return lease;
  }

  /**
   * In local mode the driver is the executor: a job that must have a GPU ({@code engine=gpu} or
   * {@code requireGpu=true}) fails here, with the engine's own error, before any job runs.
   */
  public static void checkBeforeJobs(SparkContext sc, GstmSettings settings) {
    GstmSettings.Executors e = settings.executors();
    if (sc.isLocal() && (e.engine() == EngineChoice.GPU || e.requireGpu())) {
      acquire(settings).close();
    }
  }

  /**
   * The GPU the task was given by Spark's scheduler, else the configured ordinal, spread over
   * {@code spark.gstm.devices} by the task's partition.
   */
  static int deviceFor(TaskContext task, GstmSettings settings) {
    if (task != null) {
      ResourceInformation gpu = task.resourcesJMap().get("gpu");
      if (gpu != null && gpu.addresses().length > 0) {
        return GpuAddress.ordinal(gpu.addresses()[0], System.getenv("CUDA_VISIBLE_DEVICES"));
      }
    }
    GstmSettings.Executors e = settings.executors();
    return e.deviceOrdinal() + (task == null ? 0 : task.partitionId() % e.devices());
  }

  /**
   * Whether a task of this executor running now would get a GPU under {@code settings} (the
   * device opened once per executor, as {@link #acquire} does; no permit is taken).
   */
  public static boolean gpuUsable(GstmSettings settings) {
    return settings.executors().engine() != EngineChoice.JVM
        && slot(deviceFor(TaskContext.get(), settings), settings) != null;
  }

  /** The executor's slot of GPU {@code ordinal}, opened at the first call; null if unusable. */
  private static GpuSlot slot(int ordinal, GstmSettings settings) {
    synchronized (LOCK) {
      GpuSlot slot = GPUS.get(ordinal);
      if (slot == null && !GPU_FAILURES.containsKey(ordinal)) {
        try {
          CudaEngine engine = CudaEngine.open(ordinal);
          int tasks = settings.executors().concurrentGpuTasks();
          slot = new GpuSlot(engine, new Semaphore(tasks, true));
          GPUS.put(ordinal, slot);
          track(engine);
          LOG.info("gstm: executor uses GPU {} ({}), {} concurrent task(s)", ordinal,
              engine.device(), tasks);
        } catch (GstmException | LinkageError e) {
          GpuUnavailableReason reason = GpuUnavailableReason.classify(e);
          GPU_FAILURES.put(ordinal, new GpuFailure(reason, reason.describe(e)));
          LOG.debug("gstm: GPU {} probe failure", ordinal, e);
        }
      }
      return slot;
    }
  }

  private static TaskEngine gpuOrFallback(GstmSettings settings, TaskContext task,
      Engine preferred) {
    int ordinal = deviceFor(task, settings);
    boolean fromScheduler = task != null && task.resourcesJMap().containsKey("gpu");
    checkNotLost(ordinal);
    GpuSlot slot = slot(ordinal, settings);
    if (slot == null) {
      GpuFailure failure;
      synchronized (LOCK) {
        failure = GPU_FAILURES.get(ordinal);
      }
      String why = "no usable GPU " + ordinal + " (" + failure.message() + ")";
      if (settings.executors().engine() == EngineChoice.GPU) {
        throw new GpuUnavailableException(
            "spark.gstm.engine=gpu but " + why, failure.reason(), null);
      }
      if (settings.executors().requireGpu()) {
        throw new GpuUnavailableException(GstmConf.REQUIRE_GPU.key()
            + "=true forbids falling back to the JVM engine: " + why, failure.reason(), null);
      }
      synchronized (LOCK) {
        if (!fallbackLogged) {
          fallbackLogged = true;
          LOG.warn("gstm: {}; this executor falls back to the JVM engine", why);
        }
      }
      return jvm(settings, why + ", fell back to the JVM engine", failure.reason(), preferred);
    }
    GpuSlot held = slot;
    try {
      held.permits().acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GstmException("interrupted while waiting for a GPU permit", e);
    }
    try {
      held.engine().bind();
    } catch (RuntimeException e) {
      held.permits().release();
      throw e;
    }
    if (task != null) {
      task.addTaskFailureListener((TaskFailureListener) (ctx, error) -> noteFailure(ordinal,
          error));
    }
    String why = "GPU " + ordinal + (fromScheduler ? " from TaskContext resources"
        : " from " + GstmConf.DEVICE_ORDINAL.key());
    return new TaskEngine(held.engine(), true, why, null, held.permits()::release);
  }

  /**
   * Remembers GPU {@code ordinal} as lost when {@code error} is a lost CUDA context (a task's
   * failure on it); other failures leave the device in use.
   */
  static void noteFailure(int ordinal, Throwable error) {
    CudaFatalException fatal = TaskErrors.fatalIn(error);
    if (fatal != null) {
      synchronized (LOCK) {
        if (LOST.putIfAbsent(ordinal, fatal.getMessage()) == null) {
          LOG.error("gstm: GPU {}'s CUDA context is lost ({}); every later task of this "
              + "executor on it fails until the executor is restarted", ordinal,
              fatal.getMessage());
        }
      }
    }
  }

  private static void checkNotLost(int ordinal) {
    String lost;
    synchronized (LOCK) {
      lost = LOST.get(ordinal);
    }
    if (lost != null) {
      throw new CudaFatalException("GPU " + ordinal + "'s CUDA context was lost by an earlier "
          + "task of this executor (" + lost + "); restart the executor", null);
    }
  }

  /** Forgets lost devices (tests: the JVM of a test suite plays one executor). */
  static void forgetLost() {
    synchronized (LOCK) {
      LOST.clear();
    }
  }

  private static TaskEngine jvm(GstmSettings settings, String why,
      GpuUnavailableReason gpuUnavailable, Engine preferred) {
    int workers = settings.executors().jvmWorkers();
    JvmEngine engine;
    synchronized (LOCK) {
      ArrayDeque<JvmEngine> idle = IDLE_JVM.computeIfAbsent(workers, w -> new ArrayDeque<>());
      engine = preferred instanceof JvmEngine j && idle.remove(j) ? j : idle.pollFirst();
      if (engine == null) {
        engine = new JvmEngine(workers);
        track(engine);
      }
    }
    JvmEngine leased = engine;
    return new TaskEngine(leased, false, why, gpuUnavailable, () -> {
      synchronized (LOCK) {
        IDLE_JVM.get(workers).addFirst(leased);
      }
    });
  }

  private static void track(Engine engine) {
    ALL.add(engine);
    if (!hookAdded) {
      hookAdded = true;
      Runtime.getRuntime().addShutdownHook(new Thread(ExecutorEngines::closeAll,
          "gstm-engine-shutdown"));
    }
  }

  /** Closes every engine of this JVM (at shutdown). */
  static void closeAll() {
    synchronized (LOCK) {
      for (Engine e : ALL) {
        try {
          e.close();
        } catch (RuntimeException ex) {
          LOG.debug("closing {} at shutdown", e.name(), ex);
        }
      }
      ALL.clear();
      GPUS.clear();
      IDLE_JVM.clear();
    }
  }
}
