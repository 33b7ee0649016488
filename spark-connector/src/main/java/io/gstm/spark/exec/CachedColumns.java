package io.gstm.spark.exec;

import java.io.Serializable;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.execution.columnar.DefaultCachedBatch;
import org.apache.spark.sql.execution.columnar.DefaultCachedBatchSerializer;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * A cached DataFrame's primitive columns decoded from Spark's own cached bytes. Spark keeps a
 * cached relation as batches of per-column byte buffers (its default cache serializer) and, on
 * every scan, decodes each batch into freshly allocated column vectors; a reader that wants whole
 * columns (a graph's 268 M edges at R-MAT 2^24) then copies those vectors again and gathers the
 * copies. Decoding the buffers here writes each value once, into the caller's array: on a
 * 16.8 M-edge partition that was most of the reading task's time.
 *
 * <p>A column's buffer is Spark's layout: the null count, the null rows, the id of the
 * compression scheme, then the values, all in native byte order. The schemes Spark applies to
 * the primitive types are decoded (pass-through, run-length, dictionary, int and long delta);
 * anything else (nulls, a value that does not fit, a scheme or a shape not known here) makes a
 * read return false, and the caller reads that partition through Spark's own column batches,
 * which also raise its errors. Only a plain scan of a relation cached by the default serializer
 * qualifies ({@link ColumnarSource#cachedColumns}).
 */
public final class CachedColumns implements Serializable {
  private static final long serialVersionUID = 1L;

  private static final int PASS_THROUGH = 0;
  private static final int RUN_LENGTH = 1;
  private static final int DICTIONARY = 2;
  private static final int INT_DELTA = 4;
  private static final int LONG_DELTA = 5;

  /** Value widths in bytes; 0 for a type read here only as a floating value. */
  private static final int BYTE = 1;
  private static final int SHORT = 2;
  private static final int INT = 4;
  private static final int LONG = 8;

  /** Per column of the Dataset: its buffer's index in a cached batch, and its type. */
  private final int[] buffer;
  private final DataType[] types;
  private final transient InMemoryTableScanExec scan;

  private CachedColumns(InMemoryTableScanExec scan, int[] buffer, DataType[] types) {
    this.scan = scan;
    this.buffer = buffer;
    this.types = types;
  }

  /**
   * The cached bytes under {@code scan} for columns whose cached-relation indices are {@code
   * buffer}; null unless the relation was cached by Spark's default serializer and the scan
   * prunes no batches (no predicates).
   */
  static CachedColumns of(InMemoryTableScanExec scan, int[] buffer, DataType[] types) {
    if (!scan.predicates().isEmpty()
        || scan.relation().cacheBuilder().serializer().getClass()
            != DefaultCachedBatchSerializer.class) {
      return null;
    }
    return new CachedColumns(scan, buffer.clone(), types.clone());
  }

  /**
   * The cached batches, one list per partition, partitioned as the scan's column batches (so
   * that {@code zipPartitions} with them pairs each partition with its own).
   */
  public JavaRDD<List<CachedBatch>> partitions() {
    RDD<List<CachedBatch>> lists = PlainRdds.mapPartitions(scan.baseCacheRDD(),
        (i, it) -> {
          List<CachedBatch> all = new ArrayList<>();
          it.forEachRemaining(all::add);
          return List.of(all).iterator();
        }, true, List.class);
    return JavaRDD.fromRDD(lists, PlainRdds.tag(List.class));
  }

  /** Whether {@link #batches} decodes every column here (int, long, float and double ones). */
  public boolean decodesBatches() {
    for (DataType t : types) {
      if (t != DataTypes.IntegerType && t != DataTypes.LongType && t != DataTypes.DoubleType
          && t != DataTypes.FloatType) {
        return false;
      }
    }
    return true;
  }

  /** Cached batches decoded by {@link #batches} (for tests). */
  public static final AtomicLong DECODED_BATCHES = new AtomicLong();

  /**
   * The Dataset's column batches, each decoded from its cached bytes into arrays of its own
   * ({@link ArrayColumn}), in place of {@code spark}'s: the same partitions' batches as Spark
   * decodes them (the Dataset's columns, in its order). From the first batch it leaves to Spark
   * on, a partition continues with Spark's batches. Needs {@link #decodesBatches}.
   */
  public JavaRDD<ColumnarBatch> batches(JavaRDD<ColumnarBatch> spark) {
    if (!decodesBatches()) {
      throw new IllegalStateException("columns of types " + Arrays.toString(types)
          + " are not decoded here");
    }
    CachedColumns self = this;
    return JavaRDD.fromRDD(PlainRdds.zipPartitions(partitions().rdd(), spark.rdd(),
        (lists, theirs) -> self.decoded(lists.next(), theirs), ColumnarBatch.class),
        PlainRdds.tag(ColumnarBatch.class));
  }

  private Iterator<ColumnarBatch> decoded(List<CachedBatch> batches,
      Iterator<ColumnarBatch> spark) {
    return new Iterator<>() {
      private int next;
      private boolean onSpark;

      @Override
      public boolean hasNext() {
        return onSpark ? spark.hasNext() : next < batches.size();
      }

      @Override
      public ColumnarBatch next() {
        if (!onSpark) {
          if (next >= batches.size()) {
            throw new NoSuchElementException();
          }
          ColumnarBatch b = decode(batches.get(next));
          if (b != null) {
            next++;
            DECODED_BATCHES.incrementAndGet();
            return b;
          }
          // Spark's batches from here: skip those already decoded (the same sequence).
          onSpark = true;
          for (int k = 0; k < next; k++) {
            spark.next();
          }
        }
        return spark.next();
      }
    };
  }

  /** One cached batch as a column batch of arrays; null when a column is left to Spark. */
  private ColumnarBatch decode(CachedBatch b) {
    int n = b.numRows();
    ColumnVector[] columns = new ColumnVector[types.length];
    for (int c = 0; c < types.length; c++) {
      DataType t = types[c];
      Object values;
      boolean ok;
      if (t == DataTypes.IntegerType) {
        int[] a = new int[n];
        ok = readInts(b, c, a, 0);
        values = a;
      } else if (t == DataTypes.LongType) {
        long[] a = new long[n];
        ok = readLongs(b, c, a);
        values = a;
      } else if (t == DataTypes.DoubleType) {
        double[] a = new double[n];
        ok = readDoubles(b, c, a, 0);
        values = a;
      } else {
        float[] a = new float[n];
        ok = readFloats(b, c, a);
        values = a;
      }
      if (!ok) {
        return null;
      }
      columns[c] = new ArrayColumn(t, values);
    }
    return new ColumnarBatch(columns, n);
  }

  /** Column c of one batch as longs (a long column); false as {@link #readInts}. */
  private boolean readLongs(CachedBatch b, int c, long[] into) {
    ByteBuffer in = values(b, c);
    int n = b.numRows();
    if (in == null) {
      return false;
    }
    if (in.getInt(in.position()) == PASS_THROUGH) {
      in.getInt();
      if (in.remaining() != (long) n * LONG) {
        return false;
      }
      in.asLongBuffer().get(into, 0, n);
      return true;
    }
    return longs(in, LONG, into, 0, n);
  }

  /** Column c of one batch as floats (a float column); false as {@link #readInts}. */
  private boolean readFloats(CachedBatch b, int c, float[] into) {
    ByteBuffer in = values(b, c);
    int n = b.numRows();
    if (in == null || in.getInt() != PASS_THROUGH || in.remaining() != (long) n * 4) {
      return false;
    }
    in.asFloatBuffer().get(into, 0, n);
    return true;
  }

  /**
   * Column {@code c} of one batch into {@code into} from index {@code at} as 64-bit raw bits, as
   * a transaction's parameter holds them: an integral column's values sign-extended, a double's
   * bits, a float's bits sign-extended from 32. False as {@link #readInts}.
   */
  public boolean readBits(CachedBatch b, int c, long[] into, int at) {
    DataType t = types[c];
    ByteBuffer in = values(b, c);
    int n = b.numRows();
    if (in == null) {
      return false;
    }
    if (t == DataTypes.DoubleType || t == DataTypes.FloatType) {
      int bytes = floating(in, t, n);
      if (bytes == 0) {
        return false;
      }
      if (bytes == 8) {
        in.asLongBuffer().get(into, at, n);
      } else {
        for (int i = 0; i < n; i++) {
          into[at + i] = in.getInt();
        }
      }
      return true;
    }
    int width = integralWidth(t);
    if (width == LONG && in.getInt(in.position()) == PASS_THROUGH) {
      in.getInt();
      if (in.remaining() != (long) n * LONG) {
        return false;
      }
      in.asLongBuffer().get(into, at, n);
      return true;
    }
    return width != 0 && longs(in, width, into, at, n);
  }

  /** The rows of these batches, or -1 when one is not a batch of the default serializer. */
  public static long rows(List<CachedBatch> batches) {
    long rows = 0;
    for (CachedBatch b : batches) {
      if (!(b instanceof DefaultCachedBatch)) {
        return -1;
      }
      rows += b.numRows();
    }
    return rows;
  }

  /**
   * Column {@code c} of one batch into {@code into} from index {@code at}: an integral column as
   * ints (a long column's values must fit in an int). False, with {@code into} partly written,
   * when the column is not integral, holds a null or a value that does not fit, or a buffer is
   * in a shape not known here.
   */
  public boolean readInts(CachedBatch b, int c, int[] into, int at) {
    int width = integralWidth(types[c]);
    if (width == 0) {
      return false;
    }
    ByteBuffer in = values(b, c);
    return in != null && ints(in, width, into, at, b.numRows());
  }

  /**
   * Column {@code c} of one batch into {@code into} from index {@code at} as doubles (an
   * integral column converted as Spark's cast to double converts it). False as {@link
   * #readInts}.
   */
  public boolean readDoubles(CachedBatch b, int c, double[] into, int at) {
    DataType t = types[c];
    int width = integralWidth(t);
    ByteBuffer in = values(b, c);
    int n = b.numRows();
    if (in == null) {
      return false;
    }
    if (t == DataTypes.DoubleType || t == DataTypes.FloatType) {
      int bytes = floating(in, t, n);
      if (bytes == 0) {
        return false;
      }
      if (bytes == 8) {
        in.asDoubleBuffer().get(into, at, n);
      } else {
        for (int i = 0; i < n; i++) {
          into[at + i] = in.getFloat();
        }
      }
      return true;
    }
    if (width == 0) {
      return false;
    }
    long[] values = new long[n];
    if (!longs(in, width, values, 0, n)) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      into[at + i] = values[i];
    }
    return true;
  }

  /**
   * A float or double column's buffer past its scheme id: the width of its n values, or 0 when
   * it is not passed through (Spark compresses neither: a shape not known here) or not of n.
   */
  private static int floating(ByteBuffer in, DataType t, int n) {
    int bytes = t == DataTypes.DoubleType ? 8 : 4;
    return in.getInt() == PASS_THROUGH && in.remaining() == (long) n * bytes ? bytes : 0;
  }

  private static int integralWidth(DataType t) {
    if (t == DataTypes.IntegerType) {
      return INT;
    } else if (t == DataTypes.LongType) {
      return LONG;
    } else if (t == DataTypes.ShortType) {
      return SHORT;
    } else if (t == DataTypes.ByteType) {
      return BYTE;
    }
    return 0;
  }

  /** Column c's buffer positioned at its scheme id; null if it has nulls or no such buffer. */
  private ByteBuffer values(CachedBatch b, int c) {
    if (!(b instanceof DefaultCachedBatch d) || buffer[c] >= d.buffers().length) {
      return null;
    }
    byte[] bytes = d.buffers()[buffer[c]];
    if (bytes == null || bytes.length < 8) {
      return null;
    }
    ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
    if (in.getInt() != 0) {
      return null; // nulls: Spark's own batches report them as the caller's errors say
    }
    return in;
  }

  /** n integral values of this width into ints; false if one does not fit or the shape is off. */
  private static boolean ints(ByteBuffer in, int width, int[] into, int at, int n) {
    if (width == INT && in.getInt(in.position()) == PASS_THROUGH) {
      in.getInt();
      if (in.remaining() != (long) n * INT) {
        return false;
      }
      in.asIntBuffer().get(into, at, n);
      return true;
    }
    long[] values = new long[n];
    if (!longs(in, width, values, 0, n)) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      long v = values[i];
      if (v != (int) v) {
        return false;
      }
      into[at + i] = (int) v;
    }
    return true;
  }

  /**
   * n integral values of this width into {@code into} from index {@code at}, decoded by the
   * buffer's scheme; false on any mismatch.
   */
  private static boolean longs(ByteBuffer in, int width, long[] into, int at, int n) {
    try {
      int scheme = in.getInt();
      switch (scheme) {
        case PASS_THROUGH -> {
          if (in.remaining() != (long) n * width) {
            return false;
          }
          for (int i = 0; i < n; i++) {
            into[at + i] = value(in, width);
          }
        }
        case RUN_LENGTH -> {
          int i = 0;
          while (i < n) {
            long v = value(in, width);
            int run = in.getInt();
            if (run <= 0 || run > n - i) {
              return false;
            }
            Arrays.fill(into, at + i, at + i + run, v);
            i += run;
          }
        }
        case DICTIONARY -> {
          if (width != INT && width != LONG) {
            return false;
          }
          int size = in.getInt();
          if (size < 0 || size > Short.MAX_VALUE) {
            return false;
          }
          long[] dictionary = new long[size];
          for (int j = 0; j < size; j++) {
            dictionary[j] = value(in, width);
          }
          for (int i = 0; i < n; i++) {
            int k = in.getShort();
            if (k < 0 || k >= size) {
              return false;
            }
            into[at + i] = dictionary[k];
          }
        }
        case INT_DELTA, LONG_DELTA -> {
          if (width != (scheme == INT_DELTA ? INT : LONG)) {
            return false;
          }
          long prev = 0;
          for (int i = 0; i < n; i++) {
            byte delta = in.get();
            if (delta > Byte.MIN_VALUE) {
              prev = width == INT ? (int) (prev + delta) : prev + delta;
            } else {
              prev = value(in, width);
            }
            into[at + i] = prev;
          }
        }
        default -> {
          return false;
        }
      }
      return !in.hasRemaining();
    } catch (BufferUnderflowException e) {
      return false; // shorter than its values: a shape not known here
    }
  }

  private static long value(ByteBuffer in, int width) {
    return switch (width) {
      case BYTE -> in.get();
      case SHORT -> in.getShort();
      case INT -> in.getInt();
      default -> in.getLong();
    };
  }
}
