package io.gstm.spark.conf;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.EngineChoice;
import io.gstm.core.graph.RelaxOptions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.apache.spark.SparkConf;
import scala.Tuple2;

/**
 * The one registry of {@code spark.gstm.*} settings: key, type, default, documentation and check
 * for each. {@code docs/configuration.md} is generated from it ({@link #markdown()}); a test fails
 * when the checked-in page is stale.
 *
 * <p>Read a configuration with {@link #settings(SparkConf)}: every key is parsed and checked on the
 * driver, before any job runs, and the result travels to the executors inside the tasks.
 */
public final class GstmConf {
  public static final String PREFIX = "spark.gstm.";

  private static final Map<String, ConfEntry<?>> ENTRIES = new LinkedHashMap<>();

  public static final ConfEntry<EngineChoice> ENGINE = register(new ConfEntry<>(
      PREFIX + "engine", "one of auto, gpu, jvm", EngineChoice.AUTO,
      "Engine on each executor. `auto` takes the executor's GPU when a device, a driver and "
          + "kernels for its architecture are present, else the JVM engine (logged once per "
          + "executor); `gpu` fails when there is no usable GPU; `jvm` never touches a GPU.",
      EngineChoice::parse, v -> null));

  public static final ConfEntry<Boolean> REQUIRE_GPU = register(new ConfEntry<>(
      PREFIX + "requireGpu", "boolean", false,
      "Turns any fallback to the JVM engine into an error (a test switch, like spark-rapids' "
          + "test mode): with `true`, a task that cannot get a GPU engine fails.",
      GstmConf::parseBoolean, v -> null));

  public static final ConfEntry<Integer> DEVICE_ORDINAL = intIn(
      PREFIX + "deviceOrdinal", 0, 0, 1023,
      "CUDA device used when the task has no `gpu` resource from Spark's scheduler (local mode: "
          + "never set `spark.task.resource.gpu.amount` there, jobs would not schedule). With "
          + "`spark.executor.resource.gpu.amount` set, the address in `TaskContext.resources()` "
          + "wins.");

  public static final ConfEntry<Integer> DEVICES = intIn(
      PREFIX + "devices", 1, 1, 1024,
      "GPUs that tasks without a `gpu` resource spread over (local mode on a machine with "
          + "several GPUs): the task of partition p uses device `deviceOrdinal + p mod devices`, "
          + "and work laid out one piece per engine (a graph's subgraphs, k-means' point sets) "
          + "takes one piece per device.");

  public static final ConfEntry<Integer> CONCURRENT_GPU_TASKS = intIn(
      PREFIX + "concurrentGpuTasks", 1, 1, 64,
      "Tasks of one executor that may use its GPU at once (a semaphore, released when the task "
          + "completes). Other tasks wait.");

  public static final ConfEntry<Integer> JVM_WORKERS = intIn(
      PREFIX + "jvmWorkers", 1, 1, 256,
      "Worker threads of each JVM engine. Every concurrently running task gets its own JVM "
          + "engine (Spark already runs one task per core), so 1 is usually right.");

  public static final ConfEntry<Integer> LOCK_COVERAGE = intIn(
      PREFIX + "lockCoverage", 1, 1, 1024,
      "Words of shared state covered by one lock (1 = a lock per vertex value or accumulator).");

  public static final ConfEntry<Integer> THREADS_PER_BLOCK = threadsPerBlock(
      PREFIX + "threadsPerBlock", 256, 1024,
      "GPU threads per block of the transactional kernels (k-means; graph relaxation has its "
          + "own, `spark.gstm.graph.threadsPerBlock`).");

  public static final ConfEntry<Integer> RETRY_LIMIT = intIn(
      PREFIX + "retryLimit", RunOptions.DEFAULT_MAX_RETRIES, 1, Integer.MAX_VALUE,
      "Concurrency aborts a transaction may meet before it is abandoned (a bound so that every "
          + "batch ends; an abandoned relaxation fails the task).");

  public static final ConfEntry<Integer> MAX_SUPERSTEPS = intIn(
      PREFIX + "graph.maxSupersteps", 1000, 1, Integer.MAX_VALUE,
      "Default superstep bound of `GraphRelaxation` (each superstep relaxes every partition to "
          + "its local fixpoint, then exchanges boundary values). A run that reaches it stops and "
          + "reports `converged = false`.");

  public static final ConfEntry<Integer> MAX_LOCAL_ROUNDS = intIn(
      PREFIX + "graph.maxLocalRounds", 1_000_000, 1, Integer.MAX_VALUE,
      "Bound on the relaxation rounds one partition runs within one superstep.");

  public static final ConfEntry<Integer> GRAPH_PARTITIONS = intIn(
      PREFIX + "graph.partitions", 0, 0, 100_000,
      "Subgraphs of `GraphRelaxation` (0 = the edges DataFrame's partition count); the edges "
          + "stay in their partitions (fewer subgraphs merge neighbouring partitions, more spread "
          + "the edges round-robin). Fewer, larger subgraphs need fewer supersteps.");

  public static final ConfEntry<Integer> DRIVER_EXCHANGE_LIMIT = intIn(
      PREFIX + "graph.driverExchangeLimit", 1_000_000, 0, 10_000_000,
      "Boundary updates of one `GraphRelaxation` superstep up to which they travel through the "
          + "driver instead of a shuffle: the driver collects them with the superstep's counters, "
          + "takes the min per vertex and ships them with the next superstep (in its tasks when "
          + "few, else as a broadcast, read once per executor), so that a superstep is one stage "
          + "instead of two (a stage costs tens of ms, and the late supersteps of a run send few "
          + "updates). An update is 12 bytes: the default moves up to 12 MB through the driver. "
          + "Above it they cross a shuffle and each partition takes the min. Either way the "
          + "exchange is min-combined and the result is the same. 0 = always the shuffle.");

  public static final ConfEntry<Integer> GRAPH_THREADS_PER_BLOCK = threadsPerBlock(
      PREFIX + "graph.threadsPerBlock", RelaxOptions.DEFAULT_THREADS_PER_BLOCK, 256,
      "GPU threads per block of the graph relaxation kernel. Small blocks abort less, so "
          + "fewer than the default can be faster on a graph with hub vertices such as R-MAT's "
          + "(measured rates, with device and date: docs/benchmarks.md).");

  public static final ConfEntry<String> GRAPH_PARTITIONING = choice(
      PREFIX + "graph.partitioning", "partitioning", List.of("auto", "input", "range"),
      "Where `GraphRelaxation` puts the edges. `input`: in the partitions they are read in (no "
          + "shuffle of edges). `range`: with the owner of their source, by ranges of vertex ids "
          + "balanced by edge count, so that only the vertices at the ranges' borders are "
          + "replicated whatever order the input comes in (a shuffled 1,024 x 1,024 grid read "
          + "into 2 partitions otherwise replicates almost every vertex and had not converged "
          + "after 1,000 supersteps; by ranges it took 7). `auto`: a sample of each input "
          + "partition's edges decides: ranges when ids carry locality (at most 20% of the "
          + "sampled edges join two ranges) and the input partitions are not already such "
          + "ranges, else the input's partitions (R-MAT's scrambled ids: about half the edges "
          + "cross any split). It changes speed and supersteps, never results.");

  /** The values of {@link #GRAPH_SUBGRAPHS} and {@link #KMEANS_POINT_SETS}. */
  public static final List<String> PER_ENGINE_CHOICES = List.of("auto", "partitions", "engines");

  public static final ConfEntry<String> GRAPH_SUBGRAPHS = choice(
      PREFIX + "graph.subgraphs", "choice", PER_ENGINE_CHOICES,
      "How many subgraphs `GraphRelaxation` cuts the graph into. `partitions`: one per "
          + "partition (`setPartitions`, else `spark.gstm.graph.partitions`, else the edges "
          + "DataFrame's partitions), each relaxed by its own task, so that the cores of JVM "
          + "executors work in parallel. `engines`: one per executor engine, i.e. per GPU "
          + "(executors without a GPU count one each): the input's tasks still read the edges "
          + "in parallel, then only their packed arrays are merged; with one GPU the single "
          + "subgraph's local fixpoint is the result, in one superstep without boundary "
          + "exchange (a GPU relaxes a whole graph of millions of edges in milliseconds: cut "
          + "per core it spends its time on replicas, supersteps and Spark jobs). `auto`: "
          + "`engines` when the executors run on GPUs (local mode: this JVM's GPU is usable; a "
          + "cluster: "
          + "`spark.executor.resource.gpu.amount` is set), or for shortest paths on JVM "
          + "engines with at most 2 task slots in all (relaxed in priority order on one core, "
          + "with no supersteps, they beat a cut relaxed on both), and no subgraph count is "
          + "given (`setPartitions`, `spark.gstm.graph.partitions`); else `partitions`. It "
          + "changes speed and supersteps, never results.");

  public static final ConfEntry<String> GRAPH_EXCHANGE = choice(
      PREFIX + "graph.exchange", "exchange", List.of("auto", "hub", "jobs"),
      "How `GraphRelaxation`'s subgraphs trade boundary updates between supersteps. `hub`: "
          + "every superstep inside one Spark stage, a task per subgraph that keeps running and "
          + "sends its updates to the driver over a socket of its own, which min-combines them "
          + "and sends each subgraph its share (no Spark job per superstep; every subgraph needs "
          + "a free task slot at once, else the run fails after 5 minutes saying so). `jobs`: a "
          + "Spark job per superstep, the updates through the driver when few "
          + "(`spark.gstm.graph.driverExchangeLimit`), else a shuffle. `auto`: `hub` with a "
          + "subgraph per executor engine (`spark.gstm.graph.subgraphs`) when the cluster has a "
          + "task slot for each, else `jobs`. An executor lost during a hub's supersteps takes "
          + "its subgraph with it: the run starts over with a job per superstep. It changes "
          + "speed, never results or supersteps.");

  public static final ConfEntry<String> STATE_EXCHANGE = choice(
      PREFIX + "state.exchange", "exchange", List.of("auto", "mesh", "jobs"),
      "How a `TxState` of several partitions runs the transactions whose keys have several "
          + "owners. `mesh`: the whole epoch in one Spark stage, a task per partition that runs "
          + "its own transactions; the cross-partition ones all go to one partition's task, the "
          + "epoch's coordinator (the partitions take turns), which gathers the rows they name "
          + "from their owners over connections between the tasks, runs them as one batch and "
          + "sends the new values back (every partition needs a free task slot at once: when "
          + "they do not all start within 5 minutes the epoch runs with `jobs`). `jobs`: four "
          + "Spark jobs per epoch, the cross-partition transactions in one task. `auto`: `mesh` "
          + "when the cluster has a task slot for every partition, else `jobs`. Both give the "
          + "outcomes of a serial order: every partition's own transactions, then the "
          + "cross-partition ones. An executor lost in a `mesh` epoch fails the epoch; its "
          + "partitions are rebuilt as after any loss and the epoch runs again.");

  public static final ConfEntry<String> VERTEX_ORDER = choice(
      PREFIX + "graph.vertexOrder", "vertex order", List.of("auto", "degree", "input"),
      "How `GraphRelaxation` numbers each subgraph's vertices. `degree`: highest degree first, "
          + "so that hub values stay in the processor's caches (the JVM engine relaxed an R-MAT "
          + "partition 1.5 to 2 times as fast); `input`: by global id. `auto`: each executor "
          + "numbers by global id when its tasks run on a GPU (where the graph kernel of "
          + "2026-11-22 measured faster by global id; the current one runs R-MAT faster by "
          + "degree in `bench-graph`, the connector's default not yet measured again: "
          + "docs/design.md), "
          + "else by degree. The numbering changes speed, never results.");

  public static final ConfEntry<Integer> POINTS_PER_TRANSACTION = intIn(
      PREFIX + "kmeans.pointsPerTransaction", 256, 1, Integer.MAX_VALUE,
      "Points a task aggregates before one transaction per centroid adds them to the shared "
          + "accumulators (1 = one transaction per point, the JPDC workload).");

  public static final ConfEntry<String> KMEANS_POINT_SETS = choice(
      PREFIX + "kmeans.pointSets", "choice", PER_ENGINE_CHOICES,
      "How `TxKMeans` lays out the points. `partitions`: a point set per partition, each "
          + "updated by its own task in every iteration (one Spark job per iteration), so that "
          + "the cores of JVM executors work in parallel. `engines`: a point set per executor "
          + "engine, i.e. per GPU (executors without a GPU count one each): each executor "
          + "reads an equal share of the input (its reading tasks are pinned to the executors "
          + "in turn) and keeps the points outside Spark's cache; each set's task copies its "
          + "executor's blocks to its engine once and runs every iteration; with several sets, their tasks stay in one stage and trade each "
          + "iteration's partial sums for the next centroids with the driver over a socket of "
          + "their own (no Spark job per iteration; every set needs a free task slot at once, "
          + "else the fit fails after 5 minutes saying so). An executor lost during a fit takes "
          + "its points with it and the fit starts over from its input, at most 3 times. "
          + "`auto`: `engines` when the executors "
          + "run on GPUs (as for `spark.gstm.graph.subgraphs`), else `partitions`. Sums are "
          + "then added in another order: centroids agree to rounding.");

  private GstmConf() {}

  /** Threads per block: a multiple of 32 (whole warps) in {@code 32..max}. */
  private static ConfEntry<Integer> threadsPerBlock(String key, int defaultValue, int max,
      String doc) {
    String limit = "must be a multiple of 32 between 32 and " + max;
    return register(new ConfEntry<>(key, "int", defaultValue, doc, Integer::parseInt,
        v -> v < 32 || v > max || v % 32 != 0 ? limit : null));
  }

  private static <T> ConfEntry<T> register(ConfEntry<T> e) {
    if (ENTRIES.put(e.key(), e) != null) {
      throw new IllegalStateException("duplicate key " + e.key());
    }
    return e;
  }

  /**
   * A setting that takes one of {@code values}, in any case, the first by default; another
   * value is an error: {@code unknown <what> '<value>', expected a, b or c}.
   */
  private static ConfEntry<String> choice(String key, String what, List<String> values,
      String doc) {
    String expected = String.join(", ", values.subList(0, values.size() - 1)) + " or "
        + values.get(values.size() - 1);
    return register(new ConfEntry<>(key, "one of " + String.join(", ", values), values.get(0),
        doc, v -> {
          String t = v.trim().toLowerCase(Locale.ROOT);
          if (!values.contains(t)) {
            throw new IllegalArgumentException("unknown " + what + " '" + v + "', expected "
                + expected);
          }
          return t;
        }, v -> null));
  }

  /**
   * An int setting in {@code min..max}; another value is an error saying "must be between min
   * and max" ("must be at least min" with no upper bound).
   */
  private static ConfEntry<Integer> intIn(String key, int defaultValue, int min, int max,
      String doc) {
    String limit = max == Integer.MAX_VALUE ? "must be at least " + min
        : "must be between " + min + " and " + max;
    return register(new ConfEntry<>(key, "int", defaultValue, doc, Integer::parseInt,
        v -> v < min || v > max ? limit : null));
  }

  static boolean parseBoolean(String s) {
    switch (s.toLowerCase(Locale.ROOT)) {
      case "true":
        return true;
      case "false":
        return false;
      default:
        throw new IllegalArgumentException("expected true or false");
    }
  }

  /** Every entry, in registration order. */
  public static List<ConfEntry<?>> entries() {
    return Collections.unmodifiableList(new ArrayList<>(ENTRIES.values()));
  }

  /** Parses every {@code spark.gstm.*} key of {@code conf}; see {@link #settings(Map)}. */
  public static GstmSettings settings(SparkConf conf) {
    Map<String, String> map = new LinkedHashMap<>();
    for (Tuple2<String, String> kv : conf.getAllWithPrefix(PREFIX)) {
      map.put(PREFIX + kv._1(), kv._2());
    }
    return settings(map);
  }

  /**
   * Parses and checks the {@code spark.gstm.*} keys of {@code conf} (other keys are ignored);
   * missing keys take their defaults. An unknown {@code spark.gstm.*} key (a typo) or a bad value
   * is an IllegalArgumentException naming the key.
   */
  public static GstmSettings settings(Map<String, String> conf) {
    TreeSet<String> unknown = new TreeSet<>();
    for (String k : conf.keySet()) {
      if (k.startsWith(PREFIX) && !ENTRIES.containsKey(k)) {
        unknown.add(k);
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("unknown gstm setting(s) " + unknown + "; known: "
          + ENTRIES.keySet());
    }
    GstmSettings s = new GstmSettings(
        new GstmSettings.Executors(value(conf, ENGINE), value(conf, REQUIRE_GPU),
            value(conf, DEVICE_ORDINAL), value(conf, DEVICES), value(conf, CONCURRENT_GPU_TASKS),
            value(conf, JVM_WORKERS)),
        new GstmSettings.Transactions(value(conf, LOCK_COVERAGE), value(conf, THREADS_PER_BLOCK),
            value(conf, RETRY_LIMIT)),
        new GstmSettings.Graph(value(conf, MAX_SUPERSTEPS), value(conf, MAX_LOCAL_ROUNDS),
            value(conf, GRAPH_PARTITIONS), value(conf, DRIVER_EXCHANGE_LIMIT),
            value(conf, GRAPH_THREADS_PER_BLOCK), value(conf, VERTEX_ORDER)),
        new GstmSettings.KMeans(value(conf, POINTS_PER_TRANSACTION)));
    // Read where they are used, not kept in the settings; checked here before any job.
    value(conf, GRAPH_PARTITIONING);
    value(conf, GRAPH_SUBGRAPHS);
    value(conf, GRAPH_EXCHANGE);
    value(conf, STATE_EXCHANGE);
    value(conf, KMEANS_POINT_SETS);
    if (s.executors().requireGpu() && s.executors().engine() == EngineChoice.JVM) {
      throw new IllegalArgumentException(REQUIRE_GPU.key() + "=true contradicts "
          + ENGINE.key() + "=jvm");
    }
    return s;
  }

  /** The value of {@code entry} in {@code conf}, parsed and checked; its default when unset. */
  private static <T> T value(Map<String, String> conf, ConfEntry<T> entry) {
    return entry.parse(conf.get(entry.key()));
  }

  /** The defaults, as if no key were set. */
  public static GstmSettings defaults() {
    return settings(Map.of());
  }

  /** docs/configuration.md, generated. */
  public static String markdown() {
    StringBuilder b = new StringBuilder();
    b.append("# gstm Spark configuration\n\n")
        .append("<!-- Generated from io.gstm.spark.conf.GstmConf; do not edit. Regenerate: "
            + "mvn -B -q -pl spark-connector -am test -Dtest=GstmConfTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dgstm.regenerateDocs=true -->\n\n")
        .append("Set these like any Spark setting (`--conf`, `SparkSession.builder().config`). "
            + "They are parsed and checked on the driver before any job runs: a bad value or an "
            + "unknown `spark.gstm.*` key is an error naming the key and the limit.\n\n")
        .append("| key | type | default | meaning |\n| --- | --- | --- | --- |\n");
    for (ConfEntry<?> e : ENTRIES.values()) {
      b.append("| `").append(e.key()).append("` | ").append(e.type()).append(" | `")
          .append(e.defaultString()).append("` | ").append(e.doc().replace("|", "\\|"))
          .append(" |\n");
    }
    b.append("\nGPU resources: on a cluster, give each executor one GPU "
        + "(`spark.executor.resource.gpu.amount=1` with a discovery script) and, for the "
        + "scheduler, `spark.task.resource.gpu.amount` (e.g. `0.25` for four tasks per GPU); the "
        + "task's `gpu` address picks the device. In local mode set neither; "
        + "`spark.gstm.deviceOrdinal` picks the device.\n");
    return b.toString();
  }
}
