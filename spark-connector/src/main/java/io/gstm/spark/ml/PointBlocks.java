package io.gstm.spark.ml;

import static org.apache.spark.sql.functions.col;

import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;

/**
 * A fit's points, read from its Dataset into one row-major {@link TxKMeans.Block} per partition,
 * in the input's own tasks, from Spark's internal rows (no Row or Vector object per point):
 * either an ml Vector column ({@code featuresCol}) or numeric columns, one per dimension
 * ({@code featuresCols}; flat columns decode about twice as fast from Parquet as a Vector's
 * nested array). A null or non-finite value, or vectors of different sizes, are an
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

  /** The points whose coordinates are the numeric columns {@code names}, in that order. */
  static JavaRDD<TxKMeans.Block> columns(Dataset<?> dataset, String[] names) {
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
