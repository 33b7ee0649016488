package io.gstm.spark.state;

import io.gstm.core.program.ValueType;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.StoreLayout;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * What a {@link TxState} holds, the same on the driver and in every task: the key column (its
 * name and whether it is int or long), the value columns (each a store region of the same name),
 * how keys map to partitions, the algorithm of the partitions' stores and their lock coverage.
 */
record StateSchema(String name, String keyColumn, boolean intKey, List<String> valueNames,
    List<ValueType> valueTypes, KeyPartitioner partitioner, String algorithm, int lockCoverage)
    implements Serializable {

  /** The algorithms a state may use. */
  static final List<String> ALGORITHMS = List.of("prstm", "csmv");

  StateSchema {
    valueNames = List.copyOf(valueNames);
    valueTypes = List.copyOf(valueTypes);
    if (valueNames.isEmpty()) {
      throw new IllegalArgumentException("value columns: a state needs at least 1 value column");
    }
    if (valueNames.size() > StoreLayout.MAX_REGIONS) {
      throw new IllegalArgumentException("value columns: at most " + StoreLayout.MAX_REGIONS
          + " value columns per state (one store region each), got " + valueNames);
    }
    if (!ALGORITHMS.contains(algorithm)) {
      throw new IllegalArgumentException("algorithm: unknown algorithm '" + algorithm
          + "', expected one of " + ALGORITHMS);
    }
    if ("csmv".equals(algorithm)) {
      for (int i = 0; i < valueTypes.size(); i++) {
        if (valueTypes.get(i).isWide()) {
          throw new IllegalArgumentException("value column '" + valueNames.get(i) + "' holds "
              + valueTypes.get(i) + ": a csmv state holds 32-bit words only (int or float "
              + "columns); use prstm");
        }
      }
    }
  }

  static String parseAlgorithm(String s) {
    String v = s == null ? "" : s.trim().toLowerCase(Locale.ROOT);
    if (!ALGORITHMS.contains(v)) {
      throw new IllegalArgumentException("algorithm: unknown algorithm '" + s
          + "', expected one of " + ALGORITHMS);
    }
    return v;
  }

  int partitions() {
    return partitioner.partitions();
  }

  int regions() {
    return valueNames.size();
  }

  /** The index of value column {@code name}, or -1. */
  int region(String column) {
    return valueNames.indexOf(column);
  }

  Algorithm storeAlgorithm() {
    return "csmv".equals(algorithm) ? Algorithm.csmv(Algorithm.DEFAULT_VERSIONS)
        : Algorithm.prStm();
  }

  /** The layout of a partition store of {@code rows} rows (at least one word per region). */
  StoreLayout layout(int rows) {
    List<RegionSpec> specs = new ArrayList<>();
    for (int r = 0; r < valueNames.size(); r++) {
      specs.add(new RegionSpec(valueNames.get(r), valueTypes.get(r).regionType(),
          Math.max(1, rows), lockCoverage));
    }
    return new StoreLayout(specs);
  }

  /** The DataFrame schema of the state's rows. */
  StructType sparkSchema() {
    StructType s = new StructType().add(keyColumn, intKey ? DataTypes.IntegerType
        : DataTypes.LongType, false);
    for (int r = 0; r < valueNames.size(); r++) {
      s = s.add(valueNames.get(r), sparkType(valueTypes.get(r)), false);
    }
    return s;
  }

  static DataType sparkType(ValueType t) {
    return switch (t) {
      case INT32 -> DataTypes.IntegerType;
      case INT64 -> DataTypes.LongType;
      case FLOAT32 -> DataTypes.FloatType;
      case FLOAT64 -> DataTypes.DoubleType;
      default -> throw new IllegalArgumentException("no Spark type for " + t);
    };
  }

  /** The value type a state column of Spark type {@code t} holds, or null. */
  static ValueType valueTypeOf(DataType t) {
    if (t == DataTypes.IntegerType || t == DataTypes.ShortType || t == DataTypes.ByteType) {
      return ValueType.INT32;
    } else if (t == DataTypes.LongType) {
      return ValueType.INT64;
    } else if (t == DataTypes.FloatType) {
      return ValueType.FLOAT32;
    } else if (t == DataTypes.DoubleType) {
      return ValueType.FLOAT64;
    }
    return null;
  }

  /** Whether a column of Spark type {@code t} may feed a parameter of type {@code want}. */
  static boolean feeds(DataType t, ValueType want) {
    boolean small = t == DataTypes.ByteType || t == DataTypes.ShortType;
    return switch (want) {
      case INT32 -> small || t == DataTypes.IntegerType;
      case INT64 -> small || t == DataTypes.IntegerType || t == DataTypes.LongType;
      case FLOAT32 -> small || t == DataTypes.FloatType;
      case FLOAT64 -> small || t == DataTypes.IntegerType || t == DataTypes.FloatType
          || t == DataTypes.DoubleType;
      default -> false;
    };
  }

  static boolean isIntegral(DataType t) {
    return t == DataTypes.ByteType || t == DataTypes.ShortType || t == DataTypes.IntegerType
        || t == DataTypes.LongType;
  }

  /** A value's register bits from a number of type {@code t} (32-bit types sign-extended). */
  static long bits(ValueType t, Number v) {
    return switch (t) {
      case INT32 -> v.intValue();
      case INT64 -> v.longValue();
      case FLOAT32 -> Float.floatToRawIntBits(v.floatValue());
      default -> Double.doubleToRawLongBits(v.doubleValue());
    };
  }

  /** A boxed value of type {@code t} from register bits. */
  static Object value(ValueType t, long bits) {
    return switch (t) {
      case INT32 -> (int) bits;
      case INT64 -> bits;
      case FLOAT32 -> Float.intBitsToFloat((int) bits);
      default -> Double.longBitsToDouble(bits);
    };
  }
}
