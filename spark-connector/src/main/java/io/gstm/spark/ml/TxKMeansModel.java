package io.gstm.spark.ml;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.udf;

import java.util.Arrays;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The centroids a {@link TxKMeans} fit found; {@link #transform} adds the index of each point's
 * nearest centroid (Euclidean) as {@code predictionCol}.
 */
public final class TxKMeansModel extends Model<TxKMeansModel> {
  private static final long serialVersionUID = 1L;

  private final String uid;
  private final double[][] centers;
  private final TxKMeansReport report;
  private final Param<String> featuresCol;
  private final Param<String> predictionCol;

  TxKMeansModel(String uid, double[][] centers, TxKMeansReport report) {
    this.uid = uid;
    this.centers = centers;
    this.report = report;
    featuresCol = new Param<>(this, "featuresCol", "features column (ml Vector)");
    predictionCol = new Param<>(this, "predictionCol", "prediction column (cluster index)");
    setDefault(featuresCol, "features");
    setDefault(predictionCol, "prediction");
  }

  @Override
  public String uid() {
    return uid;
  }

  public Param<String> featuresCol() {
    return featuresCol;
  }

  public Param<String> predictionCol() {
    return predictionCol;
  }

  public TxKMeansModel setFeaturesCol(String value) {
    set(featuresCol, value);
    return this;
  }

  public TxKMeansModel setPredictionCol(String value) {
    set(predictionCol, value);
    return this;
  }

  /** The centroids, one Vector each. */
  public Vector[] clusterCenters() {
    return Arrays.stream(centers).map(Vectors::dense).toArray(Vector[]::new);
  }

  /** What the fit did (iterations, commits, aborts, engine, time). */
  public TxKMeansReport report() {
    return report;
  }

  /** Index of the centroid nearest to {@code p} (the first of equals). */
  static int nearest(double[][] centers, double[] p) {
    int best = 0;
    double bestD = Double.POSITIVE_INFINITY;
    for (int j = 0; j < centers.length; j++) {
      double d = 0;
      for (int i = 0; i < p.length; i++) {
        double x = p[i] - centers[j][i];
        d += x * x;
      }
      if (d < bestD) {
        bestD = d;
        best = j;
      }
    }
    return best;
  }

  /** Sum of squared distances of the points of {@code dataset} to their nearest centroid. */
  public double computeCost(Dataset<?> dataset) {
    double[][] c = centers;
    String f = $(featuresCol);
    return dataset.select(f).toDF().javaRDD().map(r -> {
      double[] p = ((Vector) r.get(0)).toArray();
      double[] q = c[nearest(c, p)];
      double d = 0;
      for (int i = 0; i < p.length; i++) {
        d += (p[i] - q[i]) * (p[i] - q[i]);
      }
      return d;
    }).reduce(Double::sum);
  }

  @Override
  public Dataset<Row> transform(Dataset<?> dataset) {
    transformSchema(dataset.schema());
    double[][] c = centers;
    UserDefinedFunction predict = udf(
        (UDF1<Vector, Integer>) v -> nearest(c, v.toArray()), DataTypes.IntegerType);
    return dataset.withColumn($(predictionCol), predict.apply(col($(featuresCol))));
  }

  @Override
  public StructType transformSchema(StructType schema) {
    return checkAndAppend(schema, $(featuresCol), $(predictionCol));
  }

  /** Checks the features column is an ml Vector and the prediction column is new. */
  static StructType checkAndAppend(StructType schema, String features, String prediction) {
    if (!Arrays.asList(schema.fieldNames()).contains(features)) {
      throw new IllegalArgumentException("column '" + features + "' (featuresCol) not found; "
          + "columns: " + Arrays.toString(schema.fieldNames()));
    }
    if (!(schema.apply(features).dataType() instanceof VectorUDT)) {
      throw new IllegalArgumentException("column '" + features + "' (featuresCol) must be an "
          + "ml Vector, got " + schema.apply(features).dataType().simpleString());
    }
    if (Arrays.asList(schema.fieldNames()).contains(prediction)) {
      throw new IllegalArgumentException("column '" + prediction + "' (predictionCol) already "
          + "exists");
    }
    return schema.add(prediction, DataTypes.IntegerType, false);
  }

  @Override
  public TxKMeansModel copy(ParamMap extra) {
    TxKMeansModel m = new TxKMeansModel(uid, centers, report);
    return (TxKMeansModel) copyValues(m, extra).setParent(parent());
  }
}
