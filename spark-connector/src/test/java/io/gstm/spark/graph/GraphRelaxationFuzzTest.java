package io.gstm.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.spark.SharedSpark;
import io.gstm.spark.SparkFuzz;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.DoubleFunction;
import java.util.function.LongFunction;
import java.util.stream.LongStream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded fuzzing of {@link GraphRelaxation}: edge (and vertex) DataFrames with random schemas
 * (integral, fractional, decimal, string and boolean id columns, missing or renamed columns,
 * weights of any type or none), random values (nulls, negative and huge ids, NaN, infinite,
 * negative and tiny weights, self-loops, duplicates, empty inputs) and random settings (kind,
 * source, partitions, superstep bound, exchange limit, vertex order, algorithm, engine). Every
 * input ends in values or an IllegalArgumentException with a message on the driver; values of a
 * converged run equal Dijkstra's distances or the smallest id of each component.
 */
class GraphRelaxationFuzzTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();
  @RegisterExtension
  static final SparkFuzz fuzz = new SparkFuzz("graph", 120, 25,
      "runs checked against the references", "stopped at the superstep bound");

  static LongStream seeds() {
    return fuzz.seeds();
  }

  private static final DataType[] ID_TYPES = {DataTypes.IntegerType, DataTypes.LongType,
      DataTypes.IntegerType, DataTypes.LongType, DataTypes.ShortType, DataTypes.ByteType,
      DataTypes.StringType, DataTypes.DoubleType, DataTypes.createDecimalType(20, 0),
      DataTypes.BooleanType};
  private static final DataType[] WEIGHT_TYPES = {DataTypes.DoubleType, DataTypes.DoubleType,
      DataTypes.FloatType, DataTypes.IntegerType, DataTypes.LongType,
      DataTypes.createDecimalType(10, 2), DataTypes.StringType, DataTypes.BooleanType};
  private static final long[] ODD_IDS = {-1, -2147483648L, GraphRelaxation.MAX_VERTEX_ID,
      GraphRelaxation.MAX_VERTEX_ID + 1, Long.MAX_VALUE, Long.MIN_VALUE, 32767, 127};
  private static final double[] ODD_WEIGHTS = {0, Double.NaN, Double.POSITIVE_INFINITY,
      Double.NEGATIVE_INFINITY, -1, 1e308, Double.MIN_VALUE, -0.0, 1e-300};

  /** One drawn input: the edges as values (before their column types), and how to read them. */
  private static final class Input {
    final List<long[]> edges = new ArrayList<>();
    final List<Double> weights = new ArrayList<>();
    final List<Boolean> nullIds = new ArrayList<>();
    final List<Long> vertices = new ArrayList<>();
    boolean weighted;
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void everyInputEndsInValuesOrAClearError(long seed) {
    fuzz.start(seed);
    SplittableRandom rnd = new SplittableRandom(seed);
    Input in = new Input();
    boolean odd = rnd.nextInt(3) == 0; // values beyond the rules: nulls, bad ids and weights
    int vertices = 1 + rnd.nextInt(12);
    int m = rnd.nextInt(10) == 0 ? 0 : rnd.nextInt(30);
    for (int e = 0; e < m; e++) {
      long s = rnd.nextInt(vertices);
      long d = rnd.nextInt(vertices);
      boolean nullId = false;
      if (odd && rnd.nextInt(8) == 0) {
        if (rnd.nextBoolean()) {
          nullId = true;
        } else if (rnd.nextBoolean()) {
          s = ODD_IDS[rnd.nextInt(ODD_IDS.length)];
        } else {
          d = ODD_IDS[rnd.nextInt(ODD_IDS.length)];
        }
      }
      double w = odd && rnd.nextInt(6) == 0 ? ODD_WEIGHTS[rnd.nextInt(ODD_WEIGHTS.length)]
          : rnd.nextInt(100) / 8.0;
      in.edges.add(new long[] {s, d});
      in.weights.add(odd && rnd.nextInt(20) == 0 ? null : w);
      in.nullIds.add(nullId);
    }
    DataType srcType = odd && rnd.nextInt(4) == 0 ? ID_TYPES[rnd.nextInt(ID_TYPES.length)]
        : ID_TYPES[rnd.nextInt(4)];
    DataType dstType = odd && rnd.nextInt(4) == 0 ? ID_TYPES[rnd.nextInt(ID_TYPES.length)]
        : ID_TYPES[rnd.nextInt(4)];
    int weightShape = rnd.nextInt(4); // 0 none, 1 "weight", 2 "w", 3 "weight" of an odd type
    DataType weightType = weightShape == 3 ? WEIGHT_TYPES[rnd.nextInt(WEIGHT_TYPES.length)]
        : DataTypes.DoubleType;
    String srcName = odd && rnd.nextInt(6) == 0 ? "from" : "src";
    StructType schema = new StructType().add(srcName, srcType).add("dst", dstType);
    if (weightShape > 0) {
      schema = schema.add(weightShape == 2 ? "w" : "weight", weightType);
    }
    List<Row> rows = new ArrayList<>();
    for (int e = 0; e < m; e++) {
      long[] sd = in.edges.get(e);
      boolean nullId = in.nullIds.get(e);
      Object s = nullId && rnd.nextBoolean() ? null : value(sd[0], srcType);
      Object d = nullId && s != null ? null : value(sd[1], dstType);
      Object w = in.weights.get(e) == null ? null : weight(in.weights.get(e), weightType);
      rows.add(weightShape > 0 ? RowFactory.create(s, d, w) : RowFactory.create(s, d));
      // What the run reads: a short or byte column narrows the id, a float, integer or decimal
      // column rounds the weight.
      if (s instanceof Number n && !(s instanceof Double)) {
        sd[0] = n.longValue();
      }
      if (d instanceof Number n && !(d instanceof Double)) {
        sd[1] = n.longValue();
      }
      in.weights.set(e, w instanceof Number n ? Double.valueOf(n.doubleValue()) : null);
    }
    int partitions = 1 + rnd.nextInt(4);
    Dataset<Row> edges = session.spark().createDataFrame(rows, schema).repartition(partitions);
    if (rnd.nextBoolean()) {
      edges = edges.cache(); // cached int ids and double weights are read as column batches
    }
    boolean shortest = rnd.nextBoolean();
    long source = rnd.nextInt(5) == 0 ? ODD_IDS[rnd.nextInt(ODD_IDS.length)]
        : rnd.nextInt(vertices + 2);
    StringBuilder about = new StringBuilder("seed " + seed + ": " + schema.simpleString()
        + ", " + m + " edges in " + partitions + " partitions");
    try {
      GraphRelaxation g = GraphRelaxation.of(edges);
      if (!srcName.equals("src") || rnd.nextInt(10) == 0) {
        String name = new String[] {"src", "from", "", null}[rnd.nextInt(4)];
        about.append(", srcCol ").append(name);
        g.setSrcCol(name);
      }
      String weightCol = "weight";
      if (rnd.nextInt(3) == 0) {
        weightCol = new String[] {"weight", "w", null, "nope"}[rnd.nextInt(4)];
        about.append(", weightCol ").append(weightCol);
        g.setWeightCol(weightCol);
      }
      if (rnd.nextInt(4) == 0) {
        DataType vt = odd ? ID_TYPES[rnd.nextInt(ID_TYPES.length)] : DataTypes.LongType;
        List<Row> vs = new ArrayList<>();
        int nv = rnd.nextInt(5);
        for (int i = 0; i < nv; i++) {
          long id = odd && rnd.nextInt(4) == 0 ? ODD_IDS[rnd.nextInt(ODD_IDS.length)]
              : rnd.nextInt(vertices + 4);
          Object v = value(id, vt);
          in.vertices.add(v instanceof Number n && !(v instanceof Double) ? n.longValue() : id);
          vs.add(RowFactory.create(v));
        }
        about.append(", vertices ").append(in.vertices).append(" as ").append(vt);
        g.setVertices(session.spark().createDataFrame(vs, new StructType().add("id", vt)));
      }
      if (rnd.nextInt(3) == 0) {
        int p = new int[] {0, 1, 2, 3, 5, 100_001}[rnd.nextInt(6)];
        about.append(", partitions ").append(p);
        g.setPartitions(p);
      }
      if (rnd.nextInt(3) == 0) {
        int steps = new int[] {0, 1, 2, 50}[rnd.nextInt(4)];
        about.append(", maxSupersteps ").append(steps);
        g.setMaxSupersteps(steps);
      }
      if (rnd.nextInt(3) == 0) {
        int limit = new int[] {-1, 0, 1, 1000}[rnd.nextInt(4)];
        about.append(", driverExchangeLimit ").append(limit);
        g.setDriverExchangeLimit(limit);
      }
      if (rnd.nextInt(4) == 0) {
        String order = new String[] {"auto", "degree", "input", "byId"}[rnd.nextInt(4)];
        about.append(", vertexOrder ").append(order);
        g.setVertexOrder(order);
      }
      if (rnd.nextInt(4) == 0) {
        String placement = new String[] {"auto", "input", "range", "hash"}[rnd.nextInt(4)];
        about.append(", partitioning ").append(placement);
        g.setPartitioning(placement);
      }
      String engine = rnd.nextInt(8) == 0 ? "quantum" : "jvm";
      g.setEngine(engine);
      if (shortest) {
        about.append(", shortest paths from ").append(source);
        g.shortestPaths(source);
      } else {
        about.append(", components");
        g.connectedComponents();
      }
      RelaxationResult r = g.run();
      Map<Long, Double> got = new HashMap<>();
      for (Row row : r.values().collectAsList()) {
        assertThat(got.put(row.getLong(0), row.getDouble(1))).as("%s: id %d twice", about,
            row.getLong(0)).isNull();
      }
      in.weighted = shortest && weightCol != null
          && List.of(schema.fieldNames()).contains(weightCol);
      if (r.report().converged()) {
        check(in, shortest, source, got, about.toString());
        fuzz.checked();
      } else {
        fuzz.other();
      }
    } catch (Exception e) {
      fuzz.ended(e, about);
    }
  }

  /** An id as a value of each id type but decimals. */
  private static final Map<DataType, LongFunction<Object>> ID_VALUES = Map.of(
      DataTypes.IntegerType, v -> (int) v, DataTypes.LongType, v -> v,
      DataTypes.ShortType, v -> (short) v, DataTypes.ByteType, v -> (byte) v,
      DataTypes.StringType, v -> Long.toString(v), DataTypes.DoubleType, v -> (double) v,
      DataTypes.BooleanType, v -> v % 2 == 0);
  /** A weight as a value of each weight type but decimals. */
  private static final Map<DataType, DoubleFunction<Object>> WEIGHT_VALUES = Map.of(
      DataTypes.DoubleType, w -> w, DataTypes.FloatType, w -> (float) w,
      DataTypes.IntegerType, w -> (int) w, DataTypes.LongType, w -> (long) w,
      DataTypes.StringType, w -> Double.toString(w), DataTypes.BooleanType, w -> w > 0);

  private static Object value(long v, DataType t) {
    return ID_VALUES.getOrDefault(t, BigDecimal::new).apply(v);
  }

  private static Object weight(double w, DataType t) {
    return WEIGHT_VALUES.getOrDefault(t, GraphRelaxationFuzzTest::decimalWeight).apply(w);
  }

  private static Object decimalWeight(double w) {
    return Double.isFinite(w) && Math.abs(w) < 1e7 ? BigDecimal.valueOf(w).setScale(2,
        java.math.RoundingMode.HALF_EVEN) : null;
  }

  /**
   * The values against the sequential references over the same edges (the values a run may
   * legally have taken: they passed every check, so ids and weights are valid). Weights as
   * Spark read them (a float or an integer column rounds them first).
   */
  private static void check(Input in, boolean shortest, long source, Map<Long, Double> got,
      String about) {
    Set<Long> known = new HashSet<>(in.vertices);
    Set<Long> required = new HashSet<>(in.vertices);
    Map<Long, List<long[]>> out = new HashMap<>();
    for (int e = 0; e < in.edges.size(); e++) {
      long s = in.edges.get(e)[0];
      long d = in.edges.get(e)[1];
      known.add(s);
      known.add(d);
      if (s != d) {
        required.add(s);
        required.add(d);
        out.computeIfAbsent(s, x -> new ArrayList<>()).add(new long[] {d, e});
        if (!shortest) {
          out.computeIfAbsent(d, x -> new ArrayList<>()).add(new long[] {s, e});
        }
      }
    }
    if (shortest) {
      known.add(source);
      required.add(source);
    }
    assertThat(known).as("%s: the ids with values", about).containsAll(got.keySet());
    assertThat(got.keySet()).as("%s: the ids with values", about).containsAll(required);
    Map<Long, Double> want = shortest ? dijkstra(in, out, source) : components(out, known);
    for (Map.Entry<Long, Double> v : got.entrySet()) {
      double w = want.getOrDefault(v.getKey(), shortest ? Double.POSITIVE_INFINITY
          : v.getKey());
      double g = v.getValue();
      assertThat(g == w || Math.abs(g - w) <= 1e-9 * Math.max(1, Math.abs(w)))
          .as("%s: value of %d is %s, the reference says %s", about, v.getKey(), g, w).isTrue();
    }
  }

  private static Map<Long, Double> dijkstra(Input in, Map<Long, List<long[]>> out,
      long source) {
    Map<Long, Double> dist = new HashMap<>();
    dist.put(source, 0.0);
    PriorityQueue<double[]> q = new PriorityQueue<>((a, b) -> Double.compare(a[0], b[0]));
    q.add(new double[] {0, source});
    while (!q.isEmpty()) {
      double[] top = q.poll();
      long u = (long) top[1];
      if (top[0] > dist.get(u)) {
        continue;
      }
      for (long[] edge : out.getOrDefault(u, List.of())) {
        double w = in.weighted ? in.weights.get((int) edge[1]) : 1;
        double d = top[0] + w;
        if (d < dist.getOrDefault(edge[0], Double.POSITIVE_INFINITY)) {
          dist.put(edge[0], d);
          q.add(new double[] {d, edge[0]});
        }
      }
    }
    return dist;
  }

  private static Map<Long, Double> components(Map<Long, List<long[]>> out, Set<Long> known) {
    Map<Long, Double> label = new HashMap<>();
    for (long v : known) {
      if (label.containsKey(v)) {
        continue;
      }
      List<Long> comp = new ArrayList<>();
      List<Long> stack = new ArrayList<>(List.of(v));
      Set<Long> seen = new HashSet<>(stack);
      long min = v;
      while (!stack.isEmpty()) {
        long u = stack.remove(stack.size() - 1);
        comp.add(u);
        min = Math.min(min, u);
        for (long[] e : out.getOrDefault(u, List.of())) {
          if (seen.add(e[0])) {
            stack.add(e[0]);
          }
        }
      }
      for (long u : comp) {
        label.put(u, (double) min);
      }
    }
    return label;
  }
}
