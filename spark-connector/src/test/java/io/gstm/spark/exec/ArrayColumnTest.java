package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/**
 * {@link ArrayColumn}: a whole-column read hands its own array over, a range is a copy, no
 * nulls, and a read of another type fails naming the column's type.
 */
class ArrayColumnTest {
  @Test
  void wholeReadsShareRangesCopy() {
    long[] longs = {5, -6, 7};
    ArrayColumn c = new ArrayColumn(DataTypes.LongType, longs);
    assertThat(c.getLongs(0, 3)).isSameAs(longs);
    assertThat(c.getLongs(1, 2)).containsExactly(-6, 7).isNotSameAs(longs);
    assertThat(c.getLong(2)).isEqualTo(7);
    assertThat(c.hasNull()).isFalse();
    assertThat(c.numNulls()).isZero();
    assertThat(c.isNullAt(1)).isFalse();
    int[] ints = {1, 2};
    assertThat(new ArrayColumn(DataTypes.IntegerType, ints).getInts(0, 2)).isSameAs(ints);
    assertThat(new ArrayColumn(DataTypes.IntegerType, ints).getInt(1)).isEqualTo(2);
    double[] doubles = {0.5, 1.5};
    assertThat(new ArrayColumn(DataTypes.DoubleType, doubles).getDoubles(0, 1))
        .containsExactly(0.5);
    float[] floats = {2.5f};
    assertThat(new ArrayColumn(DataTypes.FloatType, floats).getFloats(0, 1)).isSameAs(floats);
  }

  @Test
  void otherTypesFailByName() {
    ArrayColumn c = new ArrayColumn(DataTypes.IntegerType, new int[] {1});
    assertThatThrownBy(() -> c.getLong(0)).isInstanceOf(UnsupportedOperationException.class)
        .hasMessage("int column read as long");
    assertThatThrownBy(() -> c.getDoubles(0, 1)).hasMessage("int column read as double");
    assertThatThrownBy(() -> c.getUTF8String(0)).hasMessage("int column read as string");
    ArrayColumn d = new ArrayColumn(DataTypes.DoubleType, new double[] {1});
    assertThatThrownBy(() -> d.getInts(0, 1)).hasMessage("double column read as int");
  }
}
