package io.gstm.spark.graph;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.gstm.core.graph.RelaxationKind;
import io.gstm.spark.exec.CachedColumns;
import io.gstm.spark.exec.ColumnarSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Planning, first part: the input of a {@link GraphRelaxation} run, its schema checked before
 * any job and its edges read into one {@link EdgeChunk} per input partition, every value checked
 * as it is read (null and out-of-range ids, null, negative and non-finite weights are
 * IllegalArgumentExceptions naming the column). A cached DataFrame with primitive columns is read
 * from its column batches, without rows.
 */
final class EdgeInput {
  private static final Logger LOG = LoggerFactory.getLogger(EdgeInput.class);

  final Dataset<Row> edges;
  final RelaxationKind kind;
  final String srcCol;
  final String dstCol;
  final String weightCol;
  final boolean weightColExplicit;
  final Dataset<Row> vertices;
  final String vertexIdCol;

  EdgeInput(Dataset<Row> edges, RelaxationKind kind, String srcCol, String dstCol,
      String weightCol, boolean weightColExplicit, Dataset<Row> vertices, String vertexIdCol) {
    this.edges = edges;
    this.kind = kind;
    this.srcCol = srcCol;
    this.dstCol = dstCol;
    this.weightCol = weightCol;
    this.weightColExplicit = weightColExplicit;
    this.vertices = vertices;
    this.vertexIdCol = vertexIdCol;
  }

  /**
   * One chunk of checked edges per input partition: from the column batches when the plan
   * offers them, else from internal rows (no Row object per edge).
   */
  JavaRDD<EdgeChunk> slices(boolean weighted) {
    long t0 = System.nanoTime();
    JavaRDD<EdgeChunk> slices = columnarSlices(weighted);
    LOG.debug("gstm relaxation: input planned in {} ms ({})", (System.nanoTime() - t0) / 1_000_000,
        slices != null ? "column batches" : "rows");
    if (slices != null) {
      return slices;
    }
    String sc = srcCol;
    String dc = dstCol;
    String wc = weightCol;
    // Casts to DataTypes, not type names, which Spark would parse with its SQL parser on every
    // run.
    Column w = weighted ? col(weightCol).cast(DataTypes.DoubleType) : lit(1.0);
    return edges.select(col(srcCol).cast(DataTypes.LongType),
        col(dstCol).cast(DataTypes.LongType), w)
        .queryExecution().toRdd().toJavaRDD()
        .mapPartitions(it -> List.of(read(it, weighted, sc, dc, wc)).iterator(), true);
  }

  /** The extra vertex ids of {@code setVertices}, checked; null when there are none. */
  JavaRDD<List<Long>> vertexIds() {
    if (vertices == null) {
      return null;
    }
    String vc = vertexIdCol;
    return vertices.select(col(vertexIdCol).cast(DataTypes.LongType)).queryExecution()
        .toRdd().toJavaRDD().mapPartitions(it -> {
          List<Long> ids = new ArrayList<>();
          while (it.hasNext()) {
            InternalRow r = it.next();
            checkId(r, 0, vc);
            ids.add(r.getLong(0));
          }
          return List.of(ids).iterator();
        });
  }

  /** Runs that read their edges from column batches (for tests). */
  static final AtomicLong COLUMNAR_READS = new AtomicLong();

  /** Schema checks (no job); returns whether shortest paths use a weight column. */
  boolean checkSchema() {
    StructType schema = edges.schema();
    checkIntegral(schema, srcCol, "edges");
    checkIntegral(schema, dstCol, "edges");
    if (vertices != null) {
      checkIntegral(vertices.schema(), vertexIdCol, "vertices");
    }
    if (kind != RelaxationKind.SHORTEST_PATHS || weightCol == null) {
      return false;
    }
    if (!Arrays.asList(schema.fieldNames()).contains(weightCol)) {
      if (weightColExplicit) {
        throw new IllegalArgumentException("column '" + weightCol
            + "' (weightCol) not found in the edges DataFrame; columns: "
            + Arrays.toString(schema.fieldNames()));
      }
      return false;
    }
    DataType t = schema.apply(weightCol).dataType();
    if (!(t instanceof NumericType)) {
      throw new IllegalArgumentException("column '" + weightCol
          + "' (weightCol) must be numeric, got " + t.simpleString());
    }
    return true;
  }

  private static void checkIntegral(StructType schema, String name, String frame) {
    if (!Arrays.asList(schema.fieldNames()).contains(name)) {
      throw new IllegalArgumentException("column '" + name + "' not found in the " + frame
          + " DataFrame; columns: " + Arrays.toString(schema.fieldNames()));
    }
    DataType t = schema.apply(name).dataType();
    if (!(t instanceof IntegralType)) {
      throw new IllegalArgumentException("column '" + name + "' of the " + frame
          + " DataFrame must hold integral vertex ids, got " + t.simpleString());
    }
  }

  private static void checkId(InternalRow r, int i, String column) {
    checkId(r.isNullAt(i), r.isNullAt(i) ? 0 : r.getLong(i), column);
  }

  static void checkId(boolean isNull, long v, String column) {
    if (isNull) {
      throw new IllegalArgumentException("column '" + column + "': null vertex id");
    }
    if (v < 0 || v > GraphRelaxation.MAX_VERTEX_ID) {
      throw new IllegalArgumentException("column '" + column + "': vertex id " + v
          + " is beyond the supported range [0, " + GraphRelaxation.MAX_VERTEX_ID + "]");
    }
  }

  private static double checkWeight(InternalRow r, String column) {
    return checkWeight(r.isNullAt(2), r.isNullAt(2) ? 0 : r.getDouble(2), column);
  }

  static double checkWeight(boolean isNull, double w, String column) {
    if (isNull) {
      throw new IllegalArgumentException("column '" + column + "': null weight; shortest paths "
          + "need a weight on every edge");
    }
    if (w < 0) {
      throw new IllegalArgumentException("column '" + column + "': negative weight " + w
          + "; shortest paths need non-negative weights");
    }
    if (!(w < Double.POSITIVE_INFINITY)) {
      throw new IllegalArgumentException("column '" + column + "': weight " + w
          + "; weights must be finite");
    }
    return w;
  }

  /** Where each wanted name is among the names, each exactly once; null if one is not. */
  private static int[] positions(String[] names, String[] wanted) {
    int[] at = new int[wanted.length];
    for (int i = 0; i < wanted.length; i++) {
      at[i] = -1;
      for (int j = 0; j < names.length; j++) {
        if (names[j].equals(wanted[i])) {
          if (at[i] >= 0) {
            return null;
          }
          at[i] = j;
        }
      }
      if (at[i] < 0) {
        return null;
      }
    }
    return at;
  }

  /**
   * Reads the edges straight from the column batches of a cached DataFrame (integral ids, a
   * floating or integral weight), skipping the rows; null when the plan does not offer them.
   */
  private JavaRDD<EdgeChunk> columnarSlices(boolean weighted) {
    String[] wanted = weighted ? new String[] {srcCol, dstCol, weightCol}
        : new String[] {srcCol, dstCol};
    // The edges' own plan when they name the columns exactly (a Dataset plans itself once; a
    // select of the columns is a new Dataset, planned again on every run), else the select.
    Dataset<Row> raw = edges;
    int[] at = positions(edges.schema().fieldNames(), wanted);
    if (at == null) {
      raw = weighted ? edges.select(col(srcCol), col(dstCol), col(weightCol))
          : edges.select(col(srcCol), col(dstCol));
      at = weighted ? new int[] {0, 1, 2} : new int[] {0, 1};
    }
    int[] column = at;
    int width = raw.schema().size();
    int[] kinds = new int[wanted.length];
    for (int i = 0; i < kinds.length; i++) {
      kinds[i] = kindOf(raw.schema().fields()[column[i]].dataType());
      if (kinds[i] < 0 || (i < 2 && kinds[i] > LONG)) {
        return null;
      }
    }
    ColumnarSource source = ColumnarSource.of(raw);
    if (source == null || source.width() != width) {
      return null;
    }
    for (int i = 0; i < wanted.length; i++) {
      if (!source.name(column[i]).equals(wanted[i])) {
        return null;
      }
    }
    String sc = srcCol;
    String dc = dstCol;
    String wc = weightCol;
    COLUMNAR_READS.incrementAndGet();
    CachedColumns cached = source.cachedColumns();
    if (cached != null) {
      return cached.partitions().zipPartitions(source.sparkBatches(), (lists, batches) -> {
        long t0 = System.nanoTime();
        EdgeChunk c = fromCachedBytes(cached, lists.next(), column, weighted, sc, dc, wc);
        if (c != null) {
          CACHED_BYTE_READS.incrementAndGet();
          LOG.debug("gstm relaxation: read {} edges from cached bytes in {} ms", c.size(),
              (System.nanoTime() - t0) / 1_000_000);
          return List.of(c).iterator();
        }
        return List.of(fromBatches(batches, column, kinds, weighted, sc, dc, wc)).iterator();
      });
    }
    return source.sparkBatches().mapPartitions(
        it -> List.of(fromBatches(it, column, kinds, weighted, sc, dc, wc)).iterator(), true);
  }

  /** Partitions whose edges were decoded from Spark's cached bytes (for tests). */
  static final AtomicLong CACHED_BYTE_READS = new AtomicLong();

  /**
   * One partition's edges decoded from its cached batches into arrays of their exact size;
   * null when a buffer holds what the decoder leaves to Spark (nulls, an id beyond an int, a
   * shape it does not know), for the column batches' path to read (and report). Each batch is
   * checked right after it is decoded, while its values are still in the core's cache: checked
   * after the whole partition, the arrays (268 MB for 16.8 M weighted edges) were read from
   * memory once more, and the reading tasks of a node share its memory bandwidth.
   */
  private static EdgeChunk fromCachedBytes(CachedColumns cached, List<CachedBatch> batches,
      int[] column, boolean weighted, String sc, String dc, String wc) {
    long rows = CachedColumns.rows(batches);
    if (rows < 0 || rows > Integer.MAX_VALUE - 8) {
      return null;
    }
    int n = (int) rows;
    int[] s = new int[n];
    int[] d = new int[n];
    double[] w = weighted ? new double[n] : null;
    int max = -1;
    double sum = 0;
    int at = 0;
    for (CachedBatch b : batches) {
      if (!cached.readInts(b, column[0], s, at) || !cached.readInts(b, column[1], d, at)
          || (weighted && !cached.readDoubles(b, column[2], w, at))) {
        return null;
      }
      int end = at + b.numRows();
      max = EdgeChunk.checkIds(s, d, at, end, max, sc, dc);
      if (weighted) {
        sum = EdgeChunk.checkWeights(w, at, end, sum, wc);
      }
      at = end;
    }
    return EdgeChunk.adoptChecked(s, d, w, max, sum);
  }

  /** One partition's edges from its column batches. */
  private static EdgeChunk fromBatches(Iterator<ColumnarBatch> it, int[] column, int[] kinds,
      boolean weighted, String sc, String dc, String wc) {
    long t0 = System.nanoTime();
    // One chunk per batch, concatenated once at the end at its exact size.
    List<EdgeChunk> batches = new ArrayList<>();
    while (it.hasNext()) {
      ColumnarBatch b = it.next();
      ColumnVector s = b.column(column[0]);
      ColumnVector d = b.column(column[1]);
      ColumnVector wv = weighted ? b.column(column[2]) : null;
      int rows = b.numRows();
      if (kinds[0] == INT && kinds[1] == INT && (!weighted || kinds[2] == DOUBLE)
          && !s.hasNull() && !d.hasNull() && (!weighted || !wv.hasNull())) {
        // Bulk: whole columns at once (array copies for the usual on-heap vectors).
        batches.add(EdgeChunk.adopt(s.getInts(0, rows), d.getInts(0, rows),
            weighted ? wv.getDoubles(0, rows) : null, sc, dc, wc));
        continue;
      }
      EdgeChunk c = new EdgeChunk(weighted);
      batches.add(c);
      c.ensure(rows);
      for (int i = 0; i < rows; i++) {
        long sv = s.isNullAt(i) ? 0 : integral(s, kinds[0], i);
        checkId(s.isNullAt(i), sv, sc);
        long dv = d.isNullAt(i) ? 0 : integral(d, kinds[1], i);
        checkId(d.isNullAt(i), dv, dc);
        double wt = 1.0;
        if (weighted) {
          boolean isNull = wv.isNullAt(i);
          wt = checkWeight(isNull, isNull ? 0 : number(wv, kinds[2], i), wc);
        }
        c.addEdge((int) sv, (int) dv, wt);
      }
    }
    EdgeChunk all = batches.size() == 1 ? batches.get(0) : EdgeChunk.concat(batches, weighted);
    LOG.debug("gstm relaxation: read {} edges from column batches in {} ms", all.size(),
        (System.nanoTime() - t0) / 1_000_000);
    return all;
  }

  private static final int BYTE = 0;
  private static final int SHORT = 1;
  private static final int INT = 2;
  private static final int LONG = 3;
  private static final int FLOAT = 4;
  private static final int DOUBLE = 5;

  private static int kindOf(DataType t) {
    if (t == DataTypes.ByteType) {
      return BYTE;
    } else if (t == DataTypes.ShortType) {
      return SHORT;
    } else if (t == DataTypes.IntegerType) {
      return INT;
    } else if (t == DataTypes.LongType) {
      return LONG;
    } else if (t == DataTypes.FloatType) {
      return FLOAT;
    } else if (t == DataTypes.DoubleType) {
      return DOUBLE;
    }
    return -1;
  }

  private static long integral(ColumnVector v, int kind, int i) {
    return switch (kind) {
      case BYTE -> v.getByte(i);
      case SHORT -> v.getShort(i);
      case INT -> v.getInt(i);
      default -> v.getLong(i);
    };
  }

  /** As Spark's cast to double. */
  private static double number(ColumnVector v, int kind, int i) {
    return switch (kind) {
      case FLOAT -> v.getFloat(i);
      case DOUBLE -> v.getDouble(i);
      default -> integral(v, kind, i);
    };
  }

  /** Reads and checks one slice's edges. */
  private static EdgeChunk read(Iterator<InternalRow> it, boolean weighted, String sc, String dc,
      String wc) {
    long t0 = System.nanoTime();
    EdgeChunk c = new EdgeChunk(weighted);
    while (it.hasNext()) {
      InternalRow r = it.next();
      checkId(r, 0, sc);
      checkId(r, 1, dc);
      c.addEdge((int) r.getLong(0), (int) r.getLong(1), weighted ? checkWeight(r, wc) : 1.0);
    }
    LOG.debug("gstm relaxation: read {} edges in {} ms", c.size(),
        (System.nanoTime() - t0) / 1_000_000);
    return c;
  }}
