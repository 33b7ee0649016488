package io.gstm.spark.ml;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.udf;

import java.util.Arrays;
import java.util.List;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.feature.VectorAssembler;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.StringArrayParam;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NumericType;
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
  private final StringArrayParam featuresCols;
  private final Param<String> predictionCol;

  TxKMeansModel(String uid, double[][] centers, TxKMeansReport report) {
    this.uid = uid;
    this.centers = centers;
    this.report = report;
    featuresCol = new Param<>(this, "featuresCol", "features column (ml Vector)");
    featuresCols = new StringArrayParam(this, "featuresCols", "numeric feature columns, one "
        + "per dimension, used instead of featuresCol when set");
    predictionCol = new Param<>(this, "predictionCol", "prediction column (cluster index)");
    setDefault(featuresCol, "features");
    setDefault(featuresCols, new String[0]);
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

  public StringArrayParam featuresCols() {
    return featuresCols;
  }

  /** Predicts from these numeric columns (as the fit read them) instead of featuresCol. */
  public TxKMeansModel setFeaturesCols(String... value) {
    set(featuresCols, value.clone());
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
    String[] cols = $(featuresCols);
    if (cols.length > 0) {
      f = assembledColumn(dataset.schema());
      dataset = assemble(dataset, cols, f);
    }
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
    String[] cols = $(featuresCols);
    if (cols.length == 0) {
      return dataset.withColumn($(predictionCol), predict.apply(col($(featuresCol))));
    }
    String tmp = assembledColumn(dataset.schema());
    return assemble(dataset, cols, tmp).withColumn($(predictionCol), predict.apply(col(tmp)))
        .drop(tmp);
  }

  @Override
  public StructType transformSchema(StructType schema) {
    String[] cols = $(featuresCols);
    return cols.length > 0 ? checkColumnsAndAppend(schema, cols, $(predictionCol))
        : checkAndAppend(schema, $(featuresCol), $(predictionCol));
  }

  /** Checks the feature columns exist and are numeric, and the prediction column is new. */
  static StructType checkColumnsAndAppend(StructType schema, String[] features,
      String prediction) {
    List<String> names = Arrays.asList(schema.fieldNames());
    for (String f : features) {
      if (!names.contains(f)) {
        throw new IllegalArgumentException("column '" + f + "' (featuresCols) not found; "
            + "columns: " + names);
      }
      if (!(schema.apply(f).dataType() instanceof NumericType)) {
        throw new IllegalArgumentException("column '" + f + "' (featuresCols) must be numeric, "
            + "got " + schema.apply(f).dataType().simpleString());
      }
    }
    if (names.contains(prediction)) {
      throw new IllegalArgumentException("column '" + prediction + "' (predictionCol) already "
          + "exists");
    }
    return schema.add(prediction, DataTypes.IntegerType, false);
  }

  /** A column name {@code schema} does not hold, for a vector assembled from featuresCols. */
  static String assembledColumn(StructType schema) {
    String name = "_gstm_features";
    List<String> names = Arrays.asList(schema.fieldNames());
    while (names.contains(name)) {
      name = "_" + name;
    }
    return name;
  }

  /** {@code dataset} with the vector of {@code cols} as column {@code out} (nulls an error). */
  static Dataset<Row> assemble(Dataset<?> dataset, String[] cols, String out) {
    return new VectorAssembler().setInputCols(cols).setOutputCol(out).setHandleInvalid("error")
        .transform(dataset);
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
