package io.gstm.spark.exec;

import java.util.Arrays;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A column without nulls over one primitive array of its own ({@link CachedColumns#batches}):
 * an int, long, float or double column. A bulk read of the whole column hands the array over
 * (it belongs to this batch alone); other ranges are copies. Reads of another type than the
 * column's fail, as they would on Spark's own vectors.
 */
final class ArrayColumn extends ColumnVector {
  private final int[] ints;
  private final long[] longs;
  private final float[] floats;
  private final double[] doubles;
  private final int size;

  /** @param values an int[], long[], float[] or double[] matching {@code type} */
  ArrayColumn(DataType type, Object values) {
    super(type);
    ints = values instanceof int[] a ? a : null;
    longs = values instanceof long[] a ? a : null;
    floats = values instanceof float[] a ? a : null;
    doubles = values instanceof double[] a ? a : null;
    size = ints != null ? ints.length : longs != null ? longs.length
        : floats != null ? floats.length : doubles.length;
  }

  private UnsupportedOperationException wrongType(String what) {
    return new UnsupportedOperationException(type.simpleString() + " column read as "
        + what);
  }

  @Override
  public int getInt(int rowId) {
    if (ints == null) {
      throw wrongType("int");
    }
    return ints[rowId];
  }

  @Override
  public long getLong(int rowId) {
    if (longs == null) {
      throw wrongType("long");
    }
    return longs[rowId];
  }

  @Override
  public float getFloat(int rowId) {
    if (floats == null) {
      throw wrongType("float");
    }
    return floats[rowId];
  }

  @Override
  public double getDouble(int rowId) {
    if (doubles == null) {
      throw wrongType("double");
    }
    return doubles[rowId];
  }

  @Override
  public int[] getInts(int rowId, int count) {
    if (ints == null) {
      throw wrongType("int");
    }
    return rowId == 0 && count == size ? ints : Arrays.copyOfRange(ints, rowId, rowId + count);
  }

  @Override
  public long[] getLongs(int rowId, int count) {
    if (longs == null) {
      throw wrongType("long");
    }
    return rowId == 0 && count == size ? longs : Arrays.copyOfRange(longs, rowId, rowId + count);
  }

  @Override
  public float[] getFloats(int rowId, int count) {
    if (floats == null) {
      throw wrongType("float");
    }
    return rowId == 0 && count == size ? floats
        : Arrays.copyOfRange(floats, rowId, rowId + count);
  }

  @Override
  public double[] getDoubles(int rowId, int count) {
    if (doubles == null) {
      throw wrongType("double");
    }
    return rowId == 0 && count == size ? doubles
        : Arrays.copyOfRange(doubles, rowId, rowId + count);
  }

  @Override
  public void close() {}

  @Override
  public boolean hasNull() {
    return false;
  }

  @Override
  public int numNulls() {
    return 0;
  }

  @Override
  public boolean isNullAt(int rowId) {
    return false;
  }

  @Override
  public boolean getBoolean(int rowId) {
    throw wrongType("boolean");
  }

  @Override
  public byte getByte(int rowId) {
    throw wrongType("byte");
  }

  @Override
  public short getShort(int rowId) {
    throw wrongType("short");
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    throw wrongType("array");
  }

  @Override
  public ColumnarMap getMap(int ordinal) {
    throw wrongType("map");
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    throw wrongType("decimal");
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    throw wrongType("string");
  }

  @Override
  public byte[] getBinary(int rowId) {
    throw wrongType("binary");
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw wrongType("struct");
  }
}
