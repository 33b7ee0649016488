package io.gstm.spark.ml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.kmeans.KMeansUpdater;
import io.gstm.spark.SharedSpark;
import io.gstm.spark.SparkFuzz;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded fuzzing of {@link TxKMeans}: feature columns of vectors (dense and sparse, of one size
 * or mixed, with nulls, NaN and infinite values, empty), of other types or missing; random k,
 * iterations, tolerance, initialisation, seed and initial centroids (of the wrong count or size,
 * not finite). Every input ends in a model or an IllegalArgumentException with a message on
 * the driver; a model fitted from given centroids for one iteration equals the sequential
 * Lloyd step from them, and predicts a cluster in 0..k-1 for every point.
 */
class TxKMeansFuzzTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();
  @RegisterExtension
  static final SparkFuzz fuzz = new SparkFuzz("kmeans", 80, 25,
      "models checked against the sequential step", "other models");

  static LongStream seeds() {
    return fuzz.seeds();
  }

  /**
   * Found by this fuzzer: a null vector, vectors of different sizes and (then unchecked)
   * non-finite values failed in a task and reached the caller as a SparkException; non-finite
   * initial centroids were taken.
   */
  @Test
  void badPointsAndCentroidsAreIllegalArgumentsOnTheDriver() {
    StructType schema = new StructType().add("features", SQLDataTypes.VectorType());
    Object[][] cases = {
        {Vectors.dense(1, 2), null, Vectors.dense(3, 4)},
        {Vectors.dense(1, 2), Vectors.dense(1, 2, 3), Vectors.dense(3, 4)},
        {Vectors.dense(1, 2), Vectors.dense(Double.NaN, 2), Vectors.dense(3, 4)},
        {Vectors.dense(1, 2), Vectors.sparse(2, new int[] {1},
            new double[] {Double.POSITIVE_INFINITY}), Vectors.dense(3, 4)}};
    String[] messages = {"column 'features': null feature vector",
        "column 'features': vectors of sizes", "column 'features': a feature vector holds NaN",
        "column 'features': a feature vector holds Infinity"};
    for (int i = 0; i < cases.length; i++) {
      List<Row> rows = new ArrayList<>();
      for (Object v : cases[i]) {
        rows.add(RowFactory.create(v));
      }
      Dataset<Row> df = session.spark().createDataFrame(rows, schema).repartition(2);
      assertThatThrownBy(() -> new TxKMeans().setK(2).fit(df))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(messages[i]);
    }
    Dataset<Row> ok = session.spark().createDataFrame(
        List.of(RowFactory.create(Vectors.dense(1, 2)), RowFactory.create(Vectors.dense(3, 4))),
        schema);
    assertThatThrownBy(() -> new TxKMeans().setK(2).setMaxIter(0)
        .setInitialCentroids(new double[][] {{1, 2}, {Double.NaN, 0}}).fit(ok))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("initialCentroids: centroid 1 holds NaN");
  }

  private static final double[] ODD = {Double.NaN, Double.POSITIVE_INFINITY,
      Double.NEGATIVE_INFINITY, 1e308, -1e308, Double.MIN_VALUE, -0.0};

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void everyInputEndsInAModelOrAClearError(long seed) {
    fuzz.start(seed);
    SplittableRandom rnd = new SplittableRandom(seed);
    boolean odd = rnd.nextInt(3) == 0;
    int n = rnd.nextInt(8) == 0 ? 0 : 1 + rnd.nextInt(60);
    int dims = 1 + rnd.nextInt(4);
    int kind = odd ? rnd.nextInt(4) : 0; // 0 vectors, 1 array<double>, 2 double, 3 string
    DataType type = switch (kind) {
      case 0 -> SQLDataTypes.VectorType();
      case 1 -> DataTypes.createArrayType(DataTypes.DoubleType);
      case 2 -> DataTypes.DoubleType;
      default -> DataTypes.StringType;
    };
    String column = odd && rnd.nextInt(5) == 0 ? "f" : "features";
    List<Row> rows = new ArrayList<>();
    double[] flat = new double[n * dims];
    boolean finite = true;
    boolean sameSize = true;
    for (int p = 0; p < n; p++) {
      int size = odd && rnd.nextInt(15) == 0 ? 1 + rnd.nextInt(5) : dims;
      sameSize &= size == dims;
      double[] v = new double[size];
      for (int d = 0; d < size; d++) {
        v[d] = odd && rnd.nextInt(30) == 0 ? ODD[rnd.nextInt(ODD.length)]
            : rnd.nextInt(-400, 400) / 8.0;
        finite &= Double.isFinite(v[d]);
        if (size == dims) {
          flat[p * dims + d] = v[d];
        }
      }
      boolean nul = odd && rnd.nextInt(20) == 0;
      finite &= !nul;
      Object cell = nul ? null : switch (kind) {
        case 0 -> rnd.nextInt(3) == 0 ? Vectors.dense(v).toSparse() : Vectors.dense(v);
        case 1 -> v;
        case 2 -> v[0];
        default -> Double.toString(v[0]);
      };
      rows.add(RowFactory.create(cell));
    }
    Dataset<Row> df = session.spark().createDataFrame(rows, new StructType().add(column, type))
        .repartition(1 + rnd.nextInt(3));
    int k = rnd.nextInt(6) == 0 ? new int[] {0, 1, n + 1, Integer.MAX_VALUE}[rnd.nextInt(4)]
        : 2 + rnd.nextInt(Math.max(1, Math.min(5, n - 1)));
    int maxIter = odd && rnd.nextInt(4) == 0 ? -1 : rnd.nextBoolean() ? 1 : rnd.nextInt(4);
    double tol = odd && rnd.nextInt(4) == 0 ? new double[] {-1, Double.NaN,
        Double.POSITIVE_INFINITY}[rnd.nextInt(3)] : rnd.nextBoolean() ? 0 : 1e-4;
    double[][] initial = null;
    boolean initialOk = false;
    if (rnd.nextInt(3) > 0) {
      int count = rnd.nextInt(5) == 0 ? k + 1 : k;
      int size = rnd.nextInt(6) == 0 ? dims + 1 : dims;
      if (count >= 0 && count < 64) {
        initial = new double[count][size];
        initialOk = count == k && size == dims;
        for (double[] c : initial) {
          for (int d = 0; d < size; d++) {
            c[d] = odd && rnd.nextInt(20) == 0 ? ODD[rnd.nextInt(ODD.length)]
                : rnd.nextInt(-400, 400) / 8.0;
            initialOk &= Double.isFinite(c[d]);
          }
        }
      }
    }
    StringBuilder about = new StringBuilder("seed " + seed + ": " + n + " rows of " + type
        .simpleString() + " '" + column + "', " + dims + " dims, k " + k + ", maxIter "
        + maxIter + ", tol " + tol);
    try {
      TxKMeans est = new TxKMeans().setK(k).setMaxIter(maxIter).setTol(tol)
          .setSeed(rnd.nextLong());
      if (rnd.nextInt(3) == 0) {
        String mode = new String[] {"random", "k-means||", "kmeans++"}[rnd.nextInt(3)];
        about.append(", initMode ").append(mode);
        est.setInitMode(mode);
      }
      if (rnd.nextInt(8) == 0) {
        String pred = new String[] {"features", "prediction", ""}[rnd.nextInt(3)];
        about.append(", predictionCol '").append(pred).append("'");
        est.setPredictionCol(pred);
      }
      if (initial != null) {
        about.append(", ").append(initial.length).append(" initial centroids of ")
            .append(initial[0] == null ? 0 : initial.length == 0 ? 0 : initial[0].length);
        est.setInitialCentroids(initial);
      }
      TxKMeansModel model = est.fit(df);
      Vector[] centers = model.clusterCenters();
      assertThat(centers).as(about.toString()).hasSize(k);
      for (Vector c : centers) {
        assertThat(c.size()).as(about.toString()).isEqualTo(dims);
        for (double x : c.toArray()) {
          assertThat(Double.isFinite(x)).as("%s: a centroid %s", about, c).isTrue();
        }
      }
      List<Row> predicted = model.transform(df).select(est.getPredictionCol()).collectAsList();
      assertThat(predicted).as(about.toString()).hasSize(n);
      for (Row r : predicted) {
        assertThat(r.getInt(0)).as(about.toString()).isBetween(0, k - 1);
      }
      if (initial != null && initialOk && maxIter == 1 && finite && sameSize) {
        double[] start = new double[k * dims];
        for (int j = 0; j < k; j++) {
          System.arraycopy(initial[j], 0, start, j * dims, dims);
        }
        double[] step = KMeansUpdater.sequential(flat, dims, start).centroids(start);
        for (int j = 0; j < k; j++) {
          for (int d = 0; d < dims; d++) {
            double want = step[j * dims + d];
            assertThat(centers[j].apply(d)).as("%s: centroid %d dim %d", about, j, d)
                .isCloseTo(want, org.assertj.core.api.Assertions.within(
                    1e-9 * Math.max(1, Math.abs(want))));
          }
        }
        fuzz.checked();
      } else {
        fuzz.other();
      }
    } catch (Exception e) {
      fuzz.ended(e, about);
    }
  }
}
