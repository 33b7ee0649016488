package io.gstm.core.program;

import java.util.Arrays;
import java.util.Objects;

/**
 * One named, typed batch column: a value per transaction. 32-bit types are kept as int bits,
 * 64-bit types as long bits (floats by their raw bits), which is what the GPU receives and what
 * the interpreters load.
 */
public final class Column {
  /** Values from which a conversion runs on the common pool. */
  private static final int PARALLEL_VALUES = 1 << 18;

  private final String name;
  private final ValueType type;
  private final int[] ints;
  private final long[] longs;

  private Column(String name, ValueType type, int[] ints, long[] longs) {
    this.name = Objects.requireNonNull(name, "name");
    this.type = type;
    this.ints = ints;
    this.longs = longs;
  }

  public static Column ofInt32(String name, int[] values) {
    return new Column(name, ValueType.INT32, values.clone(), null);
  }

  public static Column ofInt64(String name, long[] values) {
    return new Column(name, ValueType.INT64, null, values.clone());
  }

  /**
   * An int32 column over {@code values} itself, not a copy: the batch reads the array when it
   * runs, so it must not change until the last run of the batch has returned. For batches of
   * millions, where the copy costs as much as running them.
   */
  public static Column wrapInt32(String name, int[] values) {
    return new Column(name, ValueType.INT32, Objects.requireNonNull(values, "values"), null);
  }

  /** An int64 column over {@code values} itself, as {@link #wrapInt32}. */
  public static Column wrapInt64(String name, long[] values) {
    return new Column(name, ValueType.INT64, null, Objects.requireNonNull(values, "values"));
  }

  public static Column ofFloat32(String name, float[] values) {
    int[] bits = new int[values.length];
    for (int i = 0; i < bits.length; i++) {
      bits[i] = Float.floatToRawIntBits(values[i]);
    }
    return new Column(name, ValueType.FLOAT32, bits, null);
  }

  public static Column ofFloat64(String name, double[] values) {
    long[] bits = new long[values.length];
    for (int i = 0; i < bits.length; i++) {
      bits[i] = Double.doubleToRawLongBits(values[i]);
    }
    return new Column(name, ValueType.FLOAT64, null, bits);
  }

  /**
   * As {@link #ofBits}, but a 64-bit column reads {@code bits} in place (as {@link #wrapInt64});
   * a 32-bit one is converted, as there.
   */
  public static Column wrapBits(String name, ValueType type, long[] bits) {
    if (type != null && type.isNumeric() && type.isWide()) {
      return new Column(name, type, null, Objects.requireNonNull(bits, "bits"));
    }
    return ofBits(name, type, bits);
  }

  /** A column of {@code type} from raw bits (the low 32 for the 32-bit types). */
  public static Column ofBits(String name, ValueType type, long[] bits) {
    if (type == null || !type.isNumeric()) {
      throw new IllegalArgumentException("column '" + name + "': type must be numeric, got "
          + type);
    }
    if (type.isWide()) {
      return new Column(name, type, null, bits.clone());
    }
    int[] ints = new int[bits.length];
    if (ints.length >= PARALLEL_VALUES) {
      Arrays.parallelSetAll(ints, i -> (int) bits[i]); // a batch of millions: idle cores
    } else {
      for (int i = 0; i < ints.length; i++) {
        ints[i] = (int) bits[i];
      }
    }
    return new Column(name, type, ints, null);
  }

  public String name() {
    return name;
  }

  public ValueType type() {
    return type;
  }

  public int length() {
    return ints != null ? ints.length : longs.length;
  }

  /** Bytes per value: 4 or 8. */
  public int width() {
    return ints != null ? 4 : 8;
  }

  /** The value of transaction {@code t} as register bits (32-bit types sign-extended). */
  public long bits(int t) {
    return ints != null ? ints[t] : longs[t];
  }

  /** The 32-bit values as stored (no copy: for the engines, not to be changed), or null. */
  public int[] ints() {
    return ints;
  }

  /** The 64-bit values as stored (no copy: for the engines, not to be changed), or null. */
  public long[] longs() {
    return longs;
  }

  /** The values of transactions {@code order[0], order[1], ...} as a new column. */
  Column permuted(int[] order) {
    if (ints != null) {
      int[] v = new int[order.length];
      for (int i = 0; i < v.length; i++) {
        v[i] = ints[order[i]];
      }
      return new Column(name, type, v, null);
    }
    long[] v = new long[order.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = longs[order[i]];
    }
    return new Column(name, type, null, v);
  }

  @Override
  public String toString() {
    return name + ": " + type + "[" + length() + "]";
  }
}
