package io.gstm.spark.graph;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.spark.exec.Chunks;
import io.gstm.spark.exec.PackedArrays;
import io.gstm.spark.exec.SameJvm;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outcome of {@link GraphRelaxation#run()}: the values, as a DataFrame or collected on the
 * driver as an array, and the report.
 */
public final class RelaxationResult {
  private static final Logger LOG = LoggerFactory.getLogger(RelaxationResult.class);
  private final Dataset<Row> values;
  private final RelaxationReport report;
  /** The last superstep's output (locally checkpointed) and who reports each vertex. */
  private final JavaRDD<StepOutput> last;
  private final Broadcast<Replicas> replicas;
  /** A single subgraph's values and global ids, sent with its last superstep; else null. */
  private final StepOutput onDriver;

  RelaxationResult(Dataset<Row> values, RelaxationReport report, JavaRDD<StepOutput> last,
      Broadcast<Replicas> replicas, StepOutput onDriver) {
    this.values = Objects.requireNonNull(values, "values");
    this.report = Objects.requireNonNull(report, "report");
    this.last = last;
    this.replicas = replicas;
    this.onDriver = onDriver;
  }

  /**
   * (id: long, value: double) for every vertex: the distance from the source (+infinity where
   * unreachable) or the component label (the component's smallest id); backed by the last
   * superstep's locally checkpointed blocks, which each action turns into rows, so reading it
   * reruns no relaxation (cache it to keep the rows themselves).
   */
  public Dataset<Row> values() {
    return values;
  }

  /** Supersteps, transactions, commits, aborts, times and engine. */
  public RelaxationReport report() {
    return report;
  }

  /**
   * The values on the driver, indexed by vertex id: {@code out[id]} for every vertex of the
   * graph, +infinity for ids in {@code [0, size)} that are not vertices. One job that sends each
   * subgraph's arrays, not rows: for a driver-side consumer of a whole result (a million
   * vertices), much less than collecting {@link #values()}, whose rows the driver converts one
   * by one. A single subgraph (one GPU executor) of up to 4 M vertices sends its arrays with its
   * superstep, which the result keeps (12 bytes per vertex): then no job runs here. In local
   * mode (tasks in the driver's JVM) every array comes by reference, not serialized, and a single
   * subgraph of any size sends its arrays with its superstep.
   *
   * @param size one more than the largest vertex id
   * @throws IllegalArgumentException if a vertex id is not below {@code size}
   */
  public double[] collectById(int size) {
    if (size < 0) {
      throw new IllegalArgumentException("size must not be negative, got " + size);
    }
    long t0 = System.nanoTime();
    Broadcast<Replicas> r = replicas;
    // A single subgraph reports every vertex it holds, and its values may be here already.
    List<Reported> parts = onDriver != null
        ? List.of(new Reported(onDriver.globalIds, onDriver.values))
        : last.map(o -> reported(o, r.value())).collect();
    long t1 = System.nanoTime();
    double[] out = new double[size];
    Arrays.parallelSetAll(out, i -> Double.POSITIVE_INFINITY);
    for (Reported part : parts) {
      int[] ids = part.ids;
      double[] vs = part.values;
      // Ids are distinct (each vertex reported once): slices of them are placed on all cores
      // (8.9 M random ids took 80-120 ms on one).
      java.util.OptionalInt bad = Chunks.of(ids.length).map(c -> {
        for (int i = Chunks.from(c), end = Chunks.to(c, ids.length); i < end; i++) {
          if (ids[i] < 0 || ids[i] >= size) {
            return i;
          }
          out[ids[i]] = vs[i];
        }
        return -1;
      }).filter(i -> i >= 0).min();
      if (bad.isPresent()) {
        throw new IllegalArgumentException("size: vertex id " + ids[bad.getAsInt()]
            + " is not below " + size);
      }
    }
    LOG.debug("gstm relaxation: values of {} subgraphs collected in {} ms, placed in {} ms",
        parts.size(), (t1 - t0) / 1_000_000, (System.nanoTime() - t1) / 1_000_000);
    return out;
  }

  /** The (global id, value) pairs this subgraph reports, as two arrays. */
  private static Reported reported(StepOutput o, Replicas replicas) {
    Reported r = reportedArrays(o, replicas);
    r.inProcess = SameJvm.taskInDriverJvm(); // local mode: by reference
    return r;
  }

  private static Reported reportedArrays(StepOutput o, Replicas replicas) {
    if (o.partition == 0) {
      return new Reported(o.globalIds, o.values); // the lowest holder reports all it holds
    }
    int n = o.globalIds.length;
    java.util.function.IntPredicate reports = replicas.reporter(o.partition);
    // Counted per slice, then copied per slice from its offset, on all cores (7.4 M vertices a
    // subgraph at 2^24), in the subgraph's order.
    int slices = Chunks.count(n);
    int[] first = new int[slices + 1];
    Chunks.of(n).forEach(c -> {
      int k = 0;
      for (int i = Chunks.from(c), end = Chunks.to(c, n); i < end; i++) {
        k += reports.test(o.globalIds[i]) ? 1 : 0;
      }
      first[c + 1] = k;
    });
    for (int c = 0; c < slices; c++) {
      first[c + 1] += first[c];
    }
    int[] ids = new int[first[slices]];
    double[] vs = new double[ids.length];
    Chunks.of(n).forEach(c -> {
      int k = first[c];
      for (int i = Chunks.from(c), end = Chunks.to(c, n); i < end; i++) {
        if (reports.test(o.globalIds[i])) {
          ids[k] = o.globalIds[i];
          vs[k++] = o.values[i];
        }
      }
    });
    return new Reported(ids, vs);
  }

  /** A subgraph's reported ids and values, sent to the driver as raw bytes ({@link PackedArrays}). */
  // Kryo (spark.serializer) would skip the transient arrays: it serializes this class as Java does.
  @DefaultSerializer(JavaSerializer.class)
  static final class Reported implements Serializable {
    private static final long serialVersionUID = 1L;
    transient int[] ids;
    transient double[] values;
    /** A task's result in the driver's JVM: the arrays go by reference ({@link SameJvm}). */
    transient boolean inProcess;

    Reported(int[] ids, double[] values) {
      this.ids = ids;
      this.values = values;
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
      out.defaultWriteObject();
      SameJvm.writeHeld(out, inProcess, new Object[] {ids, values});
      if (!inProcess) {
        PackedArrays.writeInts(out, ids);
        PackedArrays.writeDoubles(out, values);
      }
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      Object[] held = SameJvm.readHeld(in);
      ids = held != null ? (int[]) held[0] : PackedArrays.readInts(in);
      values = held != null ? (double[]) held[1] : PackedArrays.readDoubles(in);
    }
  }

  @Override
  public String toString() {
    return "RelaxationResult[" + report + "]";
  }
}
