package io.gstm.core.program;

import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;

/**
 * A store's regions as register bits ({@code long[region][word]}: 32-bit words sign-extended,
 * floats by their raw bits): what a replay starts from and what results are compared with.
 */
public final class StoreContents {
  private StoreContents() {}

  /** Reads every region of {@code store}. */
  public static long[][] read(TxStore store) {
    StoreLayout layout = store.layout();
    long[][] out = new long[layout.regionCount()][];
    for (int r = 0; r < out.length; r++) {
      RegionSpec spec = layout.region(r);
      switch (spec.type()) {
        case INT32 -> out[r] = int32Bits(store.readInt32(r));
        case INT64 -> out[r] = store.readInt64(r);
        case FLOAT32 -> {
          float[] v = store.readFloat32(r);
          out[r] = new long[v.length];
          for (int i = 0; i < v.length; i++) {
            out[r][i] = Float.floatToRawIntBits(v[i]);
          }
        }
        case FLOAT64 -> {
          double[] v = store.readFloat64(r);
          out[r] = new long[v.length];
          for (int i = 0; i < v.length; i++) {
            out[r][i] = Double.doubleToRawLongBits(v[i]);
          }
        }
      }
    }
    return out;
  }

  /** The register bits of INT32 words: each sign-extended. */
  public static long[] int32Bits(int[] values) {
    long[] out = new long[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = values[i];
    }
    return out;
  }

  /** INT32 words from their register bits (the low 32 bits of each). */
  public static int[] int32Values(long[] bits) {
    int[] out = new int[bits.length];
    for (int i = 0; i < bits.length; i++) {
      out[i] = (int) bits[i];
    }
    return out;
  }

  /** The contents of a store of one INT32 region holding {@code values}. */
  public static long[][] ofInt32(int[] values) {
    return new long[][] {int32Bits(values)};
  }

  /** Writes every region of {@code store} from register bits. */
  public static void write(TxStore store, long[][] contents) {
    StoreLayout layout = store.layout();
    for (int r = 0; r < layout.regionCount(); r++) {
      long[] v = contents[r];
      switch (layout.region(r).type()) {
        case INT32 -> store.writeInt32(r, int32Values(v));
        case INT64 -> store.writeInt64(r, v.clone());
        case FLOAT32 -> {
          float[] a = new float[v.length];
          for (int i = 0; i < a.length; i++) {
            a[i] = Float.intBitsToFloat((int) v[i]);
          }
          store.writeFloat32(r, a);
        }
        case FLOAT64 -> {
          double[] a = new double[v.length];
          for (int i = 0; i < a.length; i++) {
            a[i] = Double.longBitsToDouble(v[i]);
          }
          store.writeFloat64(r, a);
        }
      }
    }
  }

  /**
   * True when two words of {@code type} hold the same value: equal bits, or both NaN (the
   * engines may produce NaNs with different payloads).
   */
  public static boolean same(ValueType type, long a, long b) {
    return switch (type) {
      case FLOAT32 -> (int) a == (int) b
          || Float.isNaN(Float.intBitsToFloat((int) a)) && Float.isNaN(Float.intBitsToFloat((int) b));
      case FLOAT64 -> a == b
          || Double.isNaN(Double.longBitsToDouble(a)) && Double.isNaN(Double.longBitsToDouble(b));
      case INT32 -> (int) a == (int) b;
      default -> a == b;
    };
  }

  /** The first difference between two contents, or null when they are the same. */
  public static String firstDifference(StoreLayout layout, long[][] expected, long[][] actual) {
    for (int r = 0; r < layout.regionCount(); r++) {
      ValueType type = ValueType.of(layout.region(r).type());
      for (int i = 0; i < expected[r].length; i++) {
        if (!same(type, expected[r][i], actual[r][i])) {
          return "region '" + layout.region(r).name() + "' word " + i + ": expected "
              + show(type, expected[r][i]) + ", got " + show(type, actual[r][i]);
        }
      }
    }
    return null;
  }

  static String show(ValueType type, long bits) {
    return switch (type) {
      case INT32 -> Integer.toString((int) bits);
      case FLOAT32 -> Float.toString(Float.intBitsToFloat((int) bits));
      case FLOAT64 -> Double.toString(Double.longBitsToDouble(bits));
      default -> Long.toString(bits);
    };
  }
}
