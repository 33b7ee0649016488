package io.gstm.spark.state;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.core.batch.Outcome;
import io.gstm.core.program.ValueType;
import io.gstm.spark.exec.FreshArrays;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The outcomes of one partition's (or the cross-partition phase's) transactions of one epoch,
 * row for row as in the {@link TxChunk} they came from; turned into rows of the outcome
 * DataFrame ({@link #schema}).
 */
@DefaultSerializer(JavaSerializer.class)
final class OutcomeChunk implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Outcomes decided outside the engine, after the core's {@link Outcome} codes. */
  static final byte MISSING_KEY = 20;
  static final byte NULL_KEY = 21;
  static final byte NULL_VALUE = 22;
  static final byte UNKNOWN_PROGRAM = 23;

  final long epoch;
  /** The owner partition, or -1 for the cross-partition phase. */
  final int partition;
  final int n;
  private final TxIds txIds;
  /**
   * Each row's program (-1: unknown) as a byte where the plan has at most 127 programs, else in
   * {@link #wideTypes}; both null: every row's is program 0 (an input without a program column).
   * A byte a row is 10 MB for ten million rows, kept with their outcomes, where the routed ints
   * were 40 MB an epoch.
   */
  private final byte[] types;
  private final int[] wideTypes;
  final byte[] codes;
  // Kept for the rows that have one: most have none.
  private final RareInts postponements;
  private final RareInts abortCodes;
  private volatile String[] causes;
  /**
   * The cause of the MISSING_KEY rows the batch decided that have none of their own: one for
   * all (a tenth of an epoch's ten million rows can miss a key, and a cause array of references
   * written row by row cost tens of milliseconds).
   */
  private volatile String missingCause;
  /** A serial position per transaction when the order was recorded, else null. */
  long[] serial;
  /**
   * Per output column, the rows whose program has the output, ascending, and their values (bits
   * in the column's type; read for the committed ones): a tenth of an epoch's ten million rows
   * may have one, and a column of a value per row was 80 MB an epoch, kept with its outcomes.
   */
  private final int[][] outputRows;
  private final long[][] outputValues;

  /**
   * The outcomes of {@code in}'s rows under {@code plan}, each row's code its routing status
   * until its batch ran. The routed ids and programs are not written after routing: kept
   * as runs of ids, or shared ({@link TxChunk#keptIds}).
   */
  OutcomeChunk(long epoch, int partition, TxChunk in, ApplyPlan plan) {
    this.epoch = epoch;
    this.partition = partition;
    this.n = in.n;
    int outputColumns = plan.outputNames.length;
    this.txIds = TxIds.of(in.txIds, n);
    in.keptIds = txIds.holds(in.txIds);
    boolean narrow = plan.programNames.length <= Byte.MAX_VALUE;
    this.types = plan.typeIndex < 0 || !narrow ? null : narrowed(in.types, n);
    this.wideTypes = plan.typeIndex < 0 || narrow ? null
        : in.types.length == n ? in.types : java.util.Arrays.copyOf(in.types, n);
    in.keptTypes = wideTypes == in.types;
    this.codes = java.util.Arrays.copyOf(in.status, n);
    this.postponements = new RareInts();
    this.abortCodes = new RareInts();
    this.causes = in.causes == null ? null : java.util.Arrays.copyOf(in.causes, n);
    this.outputRows = new int[outputColumns][];
    this.outputValues = new long[outputColumns][];
    java.util.Arrays.fill(outputRows, new int[0]);
    java.util.Arrays.fill(outputValues, new long[0]);
  }

  /** The first {@code n} of {@code types} (each -1 .. 126) as bytes, on all cores. */
  private static byte[] narrowed(int[] types, int n) {
    byte[] out = new byte[n];
    int slice = FreshArrays.PARALLEL_ELEMENTS;
    IntStream slices = IntStream.range(0, (n + slice - 1) / slice);
    (n >= 2 * slice ? slices.parallel() : slices).forEach(k -> {
      for (int i = k * slice, to = Math.min(n, i + slice); i < to; i++) {
        out[i] = (byte) types[i];
      }
    });
    return out;
  }

  int outputColumns() {
    return outputRows.length;
  }

  /** Output column {@code c}'s rows (ascending) and their values, as {@link #outputRows}. */
  void outputs(int c, int[] rows, long[] values) {
    if (rows.length != values.length) {
      throw new IllegalArgumentException("output " + c + ": " + rows.length + " rows and "
          + values.length + " values");
    }
    outputRows[c] = rows;
    outputValues[c] = values;
  }

  /**
   * Rows {@code rows} (ascending, each given once per chunk) were postponed {@code counts}
   * times (semantic conflicts) and aborted with codes {@code abortCodes} (0: none).
   */
  void rare(int[] rows, int[] counts, int[] abortCodes) {
    postponements.set(rows, counts);
    this.abortCodes.set(rows, abortCodes);
  }

  /** Why row {@code i} ended as it did, when gstm decided it (a missing key). */
  void cause(int i, String cause) {
    String[] c = causes;
    if (c == null) {
      synchronized (this) {
        if (causes == null) {
          causes = new String[n];
        }
        c = causes;
      }
    }
    c[i] = cause;
  }

  /** Row {@code i} ended MISSING_KEY for {@code cause}, the batch's one cause for them. */
  void missing(int i, String cause) {
    codes[i] = MISSING_KEY;
    if (missingCause == null) {
      missingCause = cause; // every caller of a batch passes the same
    }
  }

  String cause(int i) {
    String[] c = causes;
    String own = c == null ? null : c[i];
    return own != null || codes[i] != MISSING_KEY ? own : missingCause;
  }

  static String name(byte code) {
    return switch (code) {
      case MISSING_KEY -> "MISSING_KEY";
      case NULL_KEY -> "NULL_KEY";
      case NULL_VALUE -> "NULL_VALUE";
      case UNKNOWN_PROGRAM -> "UNKNOWN_PROGRAM";
      default -> Outcome.ofCode(code).name();
    };
  }

  long committed() {
    long c = 0;
    for (int i = 0; i < n; i++) {
      c += codes[i] == Outcome.COMMITTED.code() ? 1 : 0;
    }
    return c;
  }

  /** Counts per outcome name, into {@code counts}. */
  void count(java.util.Map<String, Long> counts) {
    long[] byCode = countCodes(codes, n);
    for (int c = 0; c < byCode.length; c++) {
      if (byCode[c] > 0) {
        counts.merge(name((byte) c), byCode[c], Long::sum);
      }
    }
  }

  /**
   * How many of {@code codes[0, n)} hold each code (0..127), on all cores. Four counts per code,
   * taken in turn: an epoch's codes are nearly all one, and one count per code makes each
   * increment wait for the one before (9-17 ms against 3 ms for ten million on 2 cores).
   */
  static long[] countCodes(byte[] codes, int n) {
    int slice = FreshArrays.PARALLEL_ELEMENTS;
    IntStream slices = IntStream.range(0, (n + slice - 1) / slice);
    return (n >= 2 * slice ? slices.parallel() : slices).mapToObj(k -> {
      int[] c = new int[4 * 128]; // a slice's counts fit an int
      int i = k * slice;
      int to = Math.min(n, i + slice);
      for (; i + 3 < to; i += 4) {
        c[codes[i]]++;
        c[128 + codes[i + 1]]++;
        c[256 + codes[i + 2]]++;
        c[384 + codes[i + 3]]++;
      }
      for (; i < to; i++) {
        c[codes[i]]++;
      }
      long[] sum = new long[128];
      for (int q = 0; q < c.length; q++) {
        sum[q & 127] += c[q];
      }
      return sum;
    }).reduce(new long[128], (a, b) -> {
      long[] sum = a.clone();
      for (int c = 0; c < sum.length; c++) {
        sum[c] += b[c];
      }
      return sum;
    });
  }

  static StructType schema(ApplyPlan plan) {
    StructType s = new StructType()
        .add("txId", DataTypes.LongType, false)
        .add("epoch", DataTypes.LongType, false)
        .add("partition", DataTypes.IntegerType, false)
        .add("program", DataTypes.StringType, true)
        .add("outcome", DataTypes.StringType, false)
        .add("committed", DataTypes.BooleanType, false)
        .add("postponements", DataTypes.IntegerType, false)
        .add("abortCode", DataTypes.IntegerType, true)
        .add("cause", DataTypes.StringType, true)
        .add("serial", DataTypes.LongType, true);
    for (int c = 0; c < plan.outputNames.length; c++) {
      s = s.add(plan.outputNames[c], StateSchema.sparkType(plan.outputTypes[c]), true);
    }
    return s;
  }

  /** This chunk as outcome rows. */
  Iterator<InternalRow> rows(ApplyPlan plan) {
    UTF8String[] names = new UTF8String[plan.programNames.length];
    for (int i = 0; i < names.length; i++) {
      names[i] = UTF8String.fromString(plan.programNames[i]);
    }
    UTF8String[] outcomeNames = new UTF8String[32];
    int width = 10 + outputRows.length;
    List<InternalRow> rows = new ArrayList<>(n);
    int[] next = new int[outputRows.length]; // per output column, its first row not before i
    RareInts.Cursor postponed = postponements.cursor();
    RareInts.Cursor aborted = abortCodes.cursor();
    for (int i = 0; i < n; i++) {
      Object[] v = new Object[width];
      boolean committed = codes[i] == Outcome.COMMITTED.code();
      v[0] = txIds.get(i);
      v[1] = epoch;
      v[2] = partition;
      int type = types != null ? types[i] : wideTypes != null ? wideTypes[i] : 0;
      v[3] = type >= 0 ? names[type] : null;
      if (outcomeNames[codes[i]] == null) {
        outcomeNames[codes[i]] = UTF8String.fromString(name(codes[i]));
      }
      v[4] = outcomeNames[codes[i]];
      v[5] = committed;
      v[6] = postponed.at(i);
      int abortCode = aborted.at(i);
      v[7] = codes[i] == Outcome.USER_ABORT.code() ? abortCode : null;
      String cause = cause(i);
      v[8] = cause == null ? null : UTF8String.fromString(cause);
      v[9] = serial == null || !committed ? null : serial[i];
      for (int c = 0; c < outputRows.length; c++) {
        int[] at = outputRows[c];
        int k = next[c];
        while (k < at.length && at[k] < i) {
          k++;
        }
        next[c] = k;
        boolean has = committed && k < at.length && at[k] == i;
        v[10 + c] = has ? StateSchema.value(plan.outputTypes[c], outputValues[c][k]) : null;
      }
      rows.add(new GenericInternalRow(v));
    }
    return rows.iterator();
  }

  /**
   * Converts a program output's bits to the bits of its column's type, as Java converts the
   * numbers (without boxing one: a tenth of an epoch's rows may have an output to convert). The
   * programs' own conversion (core's {@code Semantics.convert}) keeps a float's bits
   * zero-extended, as registers do; a column keeps them as {@link ValueType#bits} makes them.
   */
  static long convert(ValueType from, ValueType to, long bits) {
    if (from == to) {
      return bits;
    }
    if (from == ValueType.BOOL) {
      throw new IllegalArgumentException("bool has no register bits");
    }
    if (from.isInteger()) {
      long v = from == ValueType.INT32 ? (int) bits : bits;
      return switch (to) {
        case INT32 -> (int) v;
        case INT64 -> v;
        case FLOAT32 -> Float.floatToRawIntBits((float) v);
        case FLOAT64 -> Double.doubleToRawLongBits((double) v);
        case BOOL -> throw new IllegalArgumentException("bool has no register bits");
      };
    }
    double v = from == ValueType.FLOAT32 ? Float.intBitsToFloat((int) bits)
        : Double.longBitsToDouble(bits);
    return switch (to) {
      case INT32 -> (int) v;
      case INT64 -> (long) v;
      case FLOAT32 -> Float.floatToRawIntBits((float) v);
      case FLOAT64 -> Double.doubleToRawLongBits(v);
      case BOOL -> throw new IllegalArgumentException("bool has no register bits");
    };
  }
}
