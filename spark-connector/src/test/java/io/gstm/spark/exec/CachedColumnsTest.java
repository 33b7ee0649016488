package io.gstm.spark.exec;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.spark.SharedSpark;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.execution.columnar.DefaultCachedBatch;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Spark's cached bytes decoded by {@link CachedColumns} equal the rows Spark itself returns,
 * for every compression scheme Spark picks for the primitive types (the test checks that each
 * one occurs), with compression off, and refuse what they leave to Spark: nulls, a long beyond
 * an int, a column that is not integral. Plans that are not a plain cached scan have none.
 */
class CachedColumnsTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();

  private static final int ROWS = 25_000; // two partitions of 10,000 and 2,500 rows' batches

  private static final StructType SCHEMA = new StructType()
      .add("rnd", DataTypes.IntegerType, false) // random: pass-through
      .add("seq", DataTypes.IntegerType, false) // small steps: int delta
      .add("runs", DataTypes.IntegerType, false) // long runs: run-length
      .add("dict", DataTypes.IntegerType, false) // few far-apart values: dictionary
      .add("lrnd", DataTypes.LongType, false)
      .add("lseq", DataTypes.LongType, false) // long delta
      .add("lbig", DataTypes.LongType, false) // beyond an int
      .add("sh", DataTypes.ShortType, false)
      .add("by", DataTypes.ByteType, false)
      .add("d", DataTypes.DoubleType, false)
      .add("f", DataTypes.FloatType, false)
      .add("nul", DataTypes.IntegerType, true)
      .add("late", DataTypes.IntegerType, true); // a null in each partition's last batch only

  private Dataset<Row> cached;

  @AfterEach
  void unpersist() {
    if (cached != null) {
      cached.unpersist();
    }
    session.spark().conf().unset("spark.sql.inMemoryColumnarStorage.compressed");
  }

  private Dataset<Row> table(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int[] far = {-2_000_000_000, -7, 0, 3, 1_000_000, 2_000_000_000};
    List<Row> rows = new ArrayList<>(ROWS);
    for (int i = 0; i < ROWS; i++) {
      rows.add(RowFactory.create(r.nextInt(), 5 * i - 60_000 + r.nextInt(3), i / 1000,
          far[r.nextInt(far.length)], (long) r.nextInt(), 1_000_000_000L + 3L * i,
          r.nextLong(), (short) (i % 100 - 50), (byte) r.nextInt(256), r.nextDouble() * 1e6,
          (float) r.nextGaussian(), i % 7 == 0 ? null : i,
          i % (ROWS / 2) == ROWS / 2 - 1 ? null : i));
    }
    // Two partitions of contiguous rows (a repartition would shuffle them: no runs, no steps).
    JavaRDD<Row> rdd = JavaSparkContext.fromSparkContext(session.spark().sparkContext())
        .parallelize(rows, 2);
    return session.spark().createDataFrame(rdd, SCHEMA).cache();
  }

  private static CachedColumns columns(Dataset<Row> ds) {
    ColumnarSource source = ColumnarSource.of(ds);
    assertThat(source).as("column batches of %s", ds.schema().simpleString()).isNotNull();
    return source.cachedColumns();
  }

  @Test
  void decodedColumnsEqualSparksRows() {
    cached = table(7);
    List<Row> rows = cached.collectAsList();
    CachedColumns c = columns(cached);
    assertThat(c).isNotNull();
    int width = SCHEMA.size();
    JavaRDD<List<CachedBatch>> parts = c.partitions();
    // Per partition, in order: each column as ints (or null where refused), as doubles and as
    // a parameter's raw bits.
    List<Object[]> decoded = parts.map(batches -> {
      int n = (int) CachedColumns.rows(batches);
      Object[] out = new Object[3 * width];
      for (int k = 0; k < width; k++) {
        int[] ints = new int[n];
        double[] doubles = new double[n];
        long[] bits = new long[n];
        out[2 * k] = readInts(c, batches, k, ints) ? ints : null;
        out[2 * k + 1] = readDoubles(c, batches, k, doubles) ? doubles : null;
        boolean ok = true;
        for (int b = 0, at = 0; b < batches.size() && ok; at += batches.get(b).numRows(), b++) {
          ok = c.readBits(batches.get(b), k, bits, at);
        }
        out[2 * width + k] = ok ? bits : null;
      }
      return out;
    }).collect();
    assertThat(decoded).hasSize(2);
    int at = 0;
    for (Object[] part : decoded) {
      int n = ((double[]) part[1]).length;
      for (int k = 0; k < width; k++) {
        String name = SCHEMA.fields()[k].name();
        boolean integral = !name.equals("d") && !name.equals("f");
        boolean fitsInt = integral && !name.equals("lbig");
        boolean nulls = name.equals("nul") || name.equals("late");
        assertThat(part[2 * k] != null).as("%s read as ints", name)
            .isEqualTo(fitsInt && !nulls);
        assertThat(part[2 * k + 1] != null).as("%s read as doubles", name).isEqualTo(!nulls);
        assertThat(part[2 * width + k] != null).as("%s read as bits", name).isEqualTo(!nulls);
        for (int i = 0; i < n && !nulls; i++) {
          Object v = rows.get(at + i).get(k);
          long bits = v instanceof Double x ? Double.doubleToRawLongBits(x)
              : v instanceof Float x ? Float.floatToRawIntBits(x) : ((Number) v).longValue();
          assertThat(((long[]) part[2 * width + k])[i]).as("%s bits of row %d", name, at + i)
              .isEqualTo(bits);
          double expected = ((Number) v).doubleValue();
          assertThat(((double[]) part[2 * k + 1])[i]).as("%s row %d", name, at + i)
              .isEqualTo(expected);
          if (part[2 * k] != null) {
            assertThat(((int[]) part[2 * k])[i]).as("%s row %d", name, at + i)
                .isEqualTo(((Number) v).intValue());
          }
        }
      }
      at += n;
    }
    assertThat(at).isEqualTo(ROWS);
    // Every scheme the decoder knows was met (so each one was compared above).
    assertThat(schemes(parts)).containsExactlyInAnyOrder(0, 1, 2, 4, 5);
  }

  @Test
  void uncompressedCacheIsReadToo() {
    session.spark().conf().set("spark.sql.inMemoryColumnarStorage.compressed", "false");
    cached = table(11);
    List<Row> rows = cached.collectAsList();
    CachedColumns c = columns(cached.select(col("seq"), col("d")));
    assertThat(c).isNotNull();
    assertThat(schemes(c.partitions())).containsExactly(0);
    List<double[]> seq = c.partitions().map(b -> {
      int n = (int) CachedColumns.rows(b);
      int[] ints = new int[n];
      assertThat(readInts(c, b, 0, ints)).isTrue();
      double[] d = new double[n];
      assertThat(readDoubles(c, b, 1, d)).isTrue();
      double[] both = new double[2 * n];
      for (int i = 0; i < n; i++) {
        both[2 * i] = ints[i];
        both[2 * i + 1] = d[i];
      }
      return both;
    }).collect();
    int at = 0;
    for (double[] part : seq) {
      for (int i = 0; i < part.length / 2; i++, at++) {
        assertThat(part[2 * i]).isEqualTo(rows.get(at).getInt(1));
        assertThat(part[2 * i + 1]).isEqualTo(rows.get(at).getDouble(9));
      }
    }
    assertThat(at).isEqualTo(ROWS);
  }

  /**
   * Decoded column batches give Spark's rows; a partition whose later batches hold a null goes
   * on with Spark's batches from there, the values still in order.
   */
  @Test
  void decodedBatchesEqualSparksRows() {
    cached = table(5);
    List<Row> rows = cached.collectAsList();
    String[][] picks = {{"rnd", "lseq", "d", "f", "runs"}, {"seq", "late"}, {"seq", "nul"}};
    long[] expected = {4, 2, 0};
    for (int pick = 0; pick < picks.length; pick++) {
      String[] names = picks[pick];
      Dataset<Row> picked = cached.select(
          Arrays.stream(names).map(n -> col(n)).toArray(Column[]::new));
      ColumnarSource source = ColumnarSource.of(picked);
      assertThat(source.cachedColumns().decodesBatches()).isTrue();
      long decoded = CachedColumns.DECODED_BATCHES.get();
      int width = names.length;
      List<double[]> parts = source.batches().mapPartitions(it -> {
        List<Double> out = new ArrayList<>();
        while (it.hasNext()) {
          ColumnarBatch b = it.next();
          for (int i = 0; i < b.numRows(); i++) {
            for (int k = 0; k < width; k++) {
              ColumnVector v = b.column(k);
              if (v.isNullAt(i)) {
                out.add(Double.NaN);
              } else if (v.dataType() == DataTypes.IntegerType) {
                out.add((double) v.getInt(i));
              } else if (v.dataType() == DataTypes.LongType) {
                out.add((double) v.getLong(i));
              } else if (v.dataType() == DataTypes.FloatType) {
                out.add((double) v.getFloat(i));
              } else {
                out.add(v.getDouble(i));
              }
            }
          }
        }
        return List.of(out.stream().mapToDouble(Double::doubleValue).toArray()).iterator();
      }).collect();
      int at = 0;
      for (double[] part : parts) {
        for (int i = 0; i < part.length / width; i++, at++) {
          for (int k = 0; k < width; k++) {
            Object v = rows.get(at).get(SCHEMA.fieldIndex(names[k]));
            // A null as NaN (no value of these columns is NaN).
            double want = v == null ? Double.NaN : ((Number) v).doubleValue();
            assertThat(Double.compare(part[i * width + k], want))
                .as("%s row %d: %s against %s", names[k], at, part[i * width + k], want)
                .isZero();
          }
        }
      }
      assertThat(at).isEqualTo(ROWS);
      // Two batches a partition: all four decoded; with a null in each partition's last batch,
      // the first of each; with nulls in every batch, none.
      assertThat(CachedColumns.DECODED_BATCHES.get() - decoded).as("%s", (Object) names)
          .isEqualTo(expected[pick]);
    }
  }

  @Test
  void onlyPlainCachedScansHaveCachedColumns() {
    cached = table(3);
    cached.count();
    assertThat(columns(cached.select(col("lseq"), col("rnd")))).isNotNull();
    System.setProperty("gstm.cachedBytes", "false"); // Spark's own decoding, to compare
    try {
      assertThat(columns(cached.select(col("lseq"), col("rnd")))).isNull();
    } finally {
      System.clearProperty("gstm.cachedBytes");
    }
    Dataset<Row> plain = session.spark().createDataFrame(List.of(RowFactory.create(1, 2)),
        new StructType().add("a", DataTypes.IntegerType).add("b", DataTypes.IntegerType));
    ColumnarSource source = ColumnarSource.of(plain);
    assertThat(source == null || source.cachedColumns() == null).isTrue();
    ColumnarSource filtered = ColumnarSource.of(cached.filter(col("rnd").gt(0)));
    assertThat(filtered == null || filtered.cachedColumns() == null).isTrue();
  }

  /** The compression scheme ids of every null-free column buffer of every batch. */
  private static Set<Integer> schemes(JavaRDD<List<CachedBatch>> parts) {
    List<Integer> ids = parts.flatMap(batches -> {
      List<Integer> out = new ArrayList<>();
      for (CachedBatch b : batches) {
        for (byte[] buffer : ((DefaultCachedBatch) b).buffers()) {
          ByteBuffer in = ByteBuffer.wrap(buffer).order(ByteOrder.nativeOrder());
          if (in.getInt() == 0) {
            out.add(in.getInt());
          }
        }
      }
      return out.iterator();
    }).collect();
    return new TreeSet<>(ids);
  }

  /** Column k of a partition's batches, one batch after the other, as the edge input reads it. */
  private static boolean readInts(CachedColumns c, List<CachedBatch> batches, int k, int[] into) {
    int at = 0;
    for (CachedBatch b : batches) {
      if (!c.readInts(b, k, into, at)) {
        return false;
      }
      at += b.numRows();
    }
    return true;
  }

  private static boolean readDoubles(CachedColumns c, List<CachedBatch> batches, int k,
      double[] into) {
    int at = 0;
    for (CachedBatch b : batches) {
      if (!c.readDoubles(b, k, into, at)) {
        return false;
      }
      at += b.numRows();
    }
    return true;
  }
}
