package io.gstm.spark.bench;

import java.io.Serializable;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.graphx.Edge;
import org.apache.spark.graphx.EdgeDirection;
import org.apache.spark.graphx.EdgeTriplet;
import org.apache.spark.graphx.Graph;
import org.apache.spark.graphx.Pregel;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;
import scala.collection.Iterator;
import scala.collection.immutable.List$;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractFunction2;
import scala.runtime.AbstractFunction3;

/**
 * The GraphX comparators of the benchmark: a vertex-centric Pregel single-source shortest paths
 * (weighted) and GraphX's own {@code connectedComponents}. Both return one value per vertex id in
 * {@code [0, vertexCount)} (infinity where unreached).
 */
public final class GraphXBaselines {
  private static final ClassTag<Double> DOUBLE = ClassTag$.MODULE$.apply(Double.class);

  private GraphXBaselines() {}

  private abstract static class F1<A, B> extends AbstractFunction1<A, B> implements Serializable {}

  private abstract static class F2<A, B, C> extends AbstractFunction2<A, B, C>
      implements Serializable {}

  private abstract static class F3<A, B, C, D> extends AbstractFunction3<A, B, C, D>
      implements Serializable {}

  /**
   * Runs {@code job} (Spark jobs, on another thread) for at most {@code limitSeconds} (0: no
   * limit); past it cancels its jobs, drops what they cached and returns null. A GraphX Pregel
   * run takes one superstep per hop of the longest shortest path: thousands on a large grid.
   */
  public static double[] within(SparkContext sc, double limitSeconds, Supplier<double[]> job) {
    if (limitSeconds <= 0) {
      return job.get();
    }
    String group = "gstm-baseline-" + System.nanoTime();
    Set<Integer> before = new HashSet<>(
        scala.jdk.javaapi.CollectionConverters.asJava(sc.getPersistentRDDs()).keySet().stream()
            .map(k -> (Integer) k).toList());
    ExecutorService thread = Executors.newSingleThreadExecutor();
    Future<double[]> f = thread.submit(() -> {
      sc.setJobGroup(group, "baseline within " + limitSeconds + " s", true);
      try {
        return job.get();
      } finally {
        sc.clearJobGroup();
      }
    });
    try {
      return f.get((long) (limitSeconds * 1000), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      sc.cancelJobGroup(group);
      try {
        f.get();
      } catch (InterruptedException | ExecutionException | CancellationException ignored) {
        // cancelled, as asked
      }
      for (Map.Entry<Object, RDD<?>> rdd : scala.jdk.javaapi.CollectionConverters
          .asJava(sc.getPersistentRDDs()).entrySet()) {
        if (!before.contains((Integer) rdd.getKey())) {
          rdd.getValue().unpersist(false);
        }
      }
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the baseline", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException re ? re
          : new IllegalStateException(e.getCause());
    } finally {
      thread.shutdownNow();
    }
  }

  /**
   * Builds a GraphX graph from an edge DataFrame (src: int, dst: int, weight: double); the caller
   * unpersists it. Timed with the baseline: gstm's times include reading the same DataFrame.
   */
  public static Graph<Double, Double> graph(Dataset<Row> edges) {
    return graph(edges.javaRDD()
        .map(r -> new Edge<>((long) r.getInt(0), (long) r.getInt(1), r.getDouble(2))));
  }

  /** Builds a GraphX graph from the edges; the caller unpersists it. */
  public static Graph<Double, Double> graph(JavaRDD<Edge<Double>> edges) {
    return Graph.fromEdges(edges.rdd(), Double.POSITIVE_INFINITY, StorageLevel.MEMORY_ONLY(),
        StorageLevel.MEMORY_ONLY(), DOUBLE, DOUBLE);
  }

  /** Pregel SSSP: distances from {@code source}, indexed by vertex id. */
  public static double[] pregelShortestPaths(Graph<Double, Double> graph, long source,
      int vertexCount) {
    F3<Object, Double, Double, Double> vprog = new F3<>() {
      @Override
      public Double apply(Object id, Double value, Double msg) {
        return (Long) id == source ? 0.0 : Math.min(value, msg);
      }
    };
    F1<EdgeTriplet<Double, Double>, Iterator<Tuple2<Object, Double>>> send = new F1<>() {
      @Override
      public Iterator<Tuple2<Object, Double>> apply(EdgeTriplet<Double, Double> t) {
        double d = t.srcAttr() + t.attr();
        if (d < t.dstAttr()) {
          return scala.package$.MODULE$.Iterator().single(new Tuple2<>(t.dstId(), d));
        }
        return List$.MODULE$.<Tuple2<Object, Double>>empty().iterator();
      }
    };
    F2<Double, Double, Double> merge = new F2<>() {
      @Override
      public Double apply(Double a, Double b) {
        return Math.min(a, b);
      }
    };
    Graph<Double, Double> out = Pregel.apply(graph, Double.POSITIVE_INFINITY, Integer.MAX_VALUE,
        EdgeDirection.Out(), vprog, send, merge, DOUBLE, DOUBLE, DOUBLE);
    double[] values = new double[vertexCount];
    Arrays.fill(values, Double.POSITIVE_INFINITY);
    for (Tuple2<Object, Double> v : out.vertices().toJavaRDD().collect()) {
      values[(int) (long) (Long) v._1()] = v._2();
    }
    out.unpersist(false);
    return values;
  }

  /** GraphX connected components: the minimum vertex id of each vertex's component. */
  public static double[] connectedComponents(Graph<Double, Double> graph, int vertexCount) {
    Graph<Object, Double> cc = graph.ops().connectedComponents();
    double[] values = new double[vertexCount];
    Arrays.fill(values, Double.POSITIVE_INFINITY);
    for (Tuple2<Object, Object> v : cc.vertices().toJavaRDD().collect()) {
      values[(int) (long) (Long) v._1()] = (double) (long) (Long) v._2();
    }
    cc.unpersist(false);
    return values;
  }
}
