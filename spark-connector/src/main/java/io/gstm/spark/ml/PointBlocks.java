package io.gstm.spark.ml;

import static org.apache.spark.sql.functions.col;

import io.gstm.spark.exec.ColumnarSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * A fit's points, read from its Dataset into one row-major {@link TxKMeans.Block} per partition,
 * in the input's own tasks: either an ml Vector column ({@code featuresCol}), from Spark's
 * internal rows (no Row or Vector object per point), or numeric columns, one per dimension
 * ({@code featuresCols}), from the column batches of a Parquet scan or a cached frame when it
 * offers them (else from rows). Flat columns decode about twice as fast from Parquet as a
 * Vector's nested array. A null or non-finite value, or vectors of different sizes, are an
 * IllegalArgumentException naming the column.
 */
final class PointBlocks {
  private PointBlocks() {}

  /** The points of the ml Vector column {@code name}. */
  static JavaRDD<TxKMeans.Block> vectors(Dataset<?> dataset, String name) {
    return dataset.select(name).queryExecution().toRdd().toJavaRDD().mapPartitions(it -> {
      VectorUDT udt = new VectorUDT();
      Growing out = new Growing();
      int dims = -1;
      while (it.hasNext()) {
        InternalRow r = it.next();
        if (r.isNullAt(0)) {
          throw new IllegalArgumentException("column '" + name + "': null feature vector");
        }
        InternalRow struct = r.getStruct(0, 4);
        // A dense vector's struct holds its values as field 3 (type 1): read them in place
        // instead of building a DenseVector per point; a sparse one goes through the UDT.
        ArrayData values = struct.getByte(0) == 1 ? struct.getArray(3) : null;
        Vector v = values == null ? udt.deserialize(struct) : null;
        int size = values != null ? values.numElements() : v.size();
        if (dims < 0) {
          dims = size;
        } else if (size != dims) {
          throw new IllegalArgumentException("column '" + name + "': vectors of sizes " + dims
              + " and " + size);
        }
        double[] buf = out.room(dims);
        int at = out.n * dims;
        for (int d = 0; d < dims; d++) {
          buf[at + d] = finite(values != null ? values.getDouble(d) : v.apply(d), name,
              "a feature vector");
        }
        out.n++;
      }
      return List.of(out.block(dims)).iterator();
    });
  }

  /** Fits whose points were read from column batches (for tests). */
  static final AtomicLong COLUMNAR_READS = new AtomicLong();

  /** The points whose coordinates are the numeric columns {@code names}, in that order. */
  static JavaRDD<TxKMeans.Block> columns(Dataset<?> dataset, String[] names) {
    JavaRDD<TxKMeans.Block> batches = columnBatches(dataset, names);
    if (batches != null) {
      return batches;
    }
    Column[] cast = Arrays.stream(names).map(n -> col(n).cast("double")).toArray(Column[]::new);
    int dims = names.length;
    return dataset.select(cast).queryExecution().toRdd().toJavaRDD().mapPartitions(it -> {
      Growing out = new Growing();
      while (it.hasNext()) {
        InternalRow r = it.next();
        double[] buf = out.room(dims);
        int at = out.n * dims;
        for (int d = 0; d < dims; d++) {
          if (r.isNullAt(d)) {
            throw new IllegalArgumentException("column '" + names[d] + "' (featuresCols): null "
                + "value");
          }
          buf[at + d] = finite(r.getDouble(d), names[d], "a feature");
        }
        out.n++;
      }
      return List.of(out.block(dims)).iterator();
    });
  }

  /**
   * The points of double columns {@code names} straight from the column batches of a Parquet
   * scan or a cached frame, a whole column of a batch at a time, interleaved into rows, without
   * a row object per point (100 M 8-D points on two executors of the two-GPU node: read in
   * 1.5-1.6 s against 1.8-2.0 s by rows); null when the plan does not offer such batches (the
   * caller reads rows).
   */
  private static JavaRDD<TxKMeans.Block> columnBatches(Dataset<?> dataset, String[] names) {
    for (String n : names) {
      int at = Arrays.asList(dataset.schema().fieldNames()).indexOf(n);
      if (at < 0 || dataset.schema().fields()[at].dataType() != DataTypes.DoubleType) {
        return null;
      }
    }
    Column[] cols = Arrays.stream(names).map(n -> col("`" + n.replace("`", "``") + "`"))
        .toArray(Column[]::new);
    ColumnarSource source = ColumnarSource.of(dataset.select(cols));
    if (source == null || source.width() != names.length) {
      return null;
    }
    for (int d = 0; d < names.length; d++) {
      if (!source.name(d).equals(names[d])) {
        return null;
      }
    }
    COLUMNAR_READS.incrementAndGet();
    int dims = names.length;
    return source.batches().mapPartitions(it -> {
      List<double[]> parts = new ArrayList<>();
      long n = 0;
      while (it.hasNext()) {
        ColumnarBatch b = it.next();
        int rows = b.numRows();
        if ((n + rows) * dims > Integer.MAX_VALUE - 8) {
          throw new IllegalArgumentException("points: a partition holds more than " + n
              + " points of " + dims + " dims, beyond one array; use more partitions");
        }
        double[] part = new double[rows * dims];
        for (int d = 0; d < dims; d++) {
          ColumnVector v = b.column(d);
          if (v.hasNull()) {
            throw new IllegalArgumentException("column '" + names[d] + "' (featuresCols): "
                + "null value");
          }
          double[] column = v.getDoubles(0, rows);
          for (int i = 0; i < rows; i++) {
            part[i * dims + d] = finite(column[i], names[d], "a feature");
          }
        }
        parts.add(part);
        n += rows;
      }
      return List.of(new TxKMeans.Block(TxKMeans.Block.join(parts, (int) (n * dims), false),
          (int) n, dims)).iterator();
    }, true);
  }

  private static double finite(double x, String column, String what) {
    if (!Double.isFinite(x)) {
      throw new IllegalArgumentException("column '" + column + "': " + what + " holds " + x
          + "; k-means needs finite values");
    }
    return x;
  }

  /** A partition's points so far, in an array that doubles when full. */
  private static final class Growing {
    double[] buf = new double[1024];
    int n;

    /** The array, with room for one more point of {@code dims}. */
    double[] room(int dims) {
      if ((long) (n + 1) * dims > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("points: a partition holds more than "
            + n + " points of " + dims + " dims, beyond one array; use more partitions");
      }
      if ((n + 1) * dims > buf.length) {
        buf = Arrays.copyOf(buf, (int) Math.min(Integer.MAX_VALUE - 8,
            Math.max(2L * buf.length, (long) (n + 1) * dims)));
      }
      return buf;
    }

    TxKMeans.Block block(int dims) {
      return new TxKMeans.Block(Arrays.copyOf(buf, Math.max(0, n * dims)), n, Math.max(dims, 0));
    }
  }
}
