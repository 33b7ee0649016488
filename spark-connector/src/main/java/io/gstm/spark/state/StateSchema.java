package io.gstm.spark.state;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
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
 *
 * <p>A state with {@code insertsAndDeletes} has one more store region after the value columns,
 * {@value #EXISTS} (int32): 1 for a row that exists, 0 for one that does not. Transactions
 * insert and delete rows by writing it ({@link KeyExistence}); it is not a column of the state's
 * rows. A partition holds at most {@code maxRows} keys ({@link #defaultMaxRows} unless the
 * state says).
 */
@DefaultSerializer(JavaSerializer.class)
record StateSchema(String name, String keyColumn, boolean intKey, List<String> valueNames,
    List<ValueType> valueTypes, KeyPartitioner partitioner, String algorithm, int lockCoverage,
    boolean insertsAndDeletes, int maxRows) implements Serializable {

  /** The region that says which rows exist, in a state with inserts and deletes. */
  static final String EXISTS = "exists";

  /** The algorithms a state may use. */
  static final List<String> ALGORITHMS = List.of("prstm", "csmv");

  StateSchema {
    valueNames = List.copyOf(valueNames);
    valueTypes = List.copyOf(valueTypes);
    if (valueNames.isEmpty()) {
      throw new IllegalArgumentException("value columns: a state needs at least 1 value column");
    }
    int most = StoreLayout.MAX_REGIONS - (insertsAndDeletes ? 1 : 0);
    if (valueNames.size() > most) {
      throw new IllegalArgumentException("value columns: at most " + most + " value columns per "
          + "state" + (insertsAndDeletes ? " with inserts and deletes" : "") + " (one store "
          + "region each" + (insertsAndDeletes ? ", and one for '" + EXISTS + "'" : "")
          + "), got " + valueNames);
    }
    if (maxRows < 1) {
      throw new IllegalArgumentException("maxRowsPerPartition must be at least 1, got "
          + maxRows);
    }
    if (insertsAndDeletes && valueNames.contains(EXISTS)) {
      throw new IllegalArgumentException("value column '" + EXISTS + "': a state with inserts "
          + "and deletes keeps which rows exist under that name; rename the column");
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

  /**
   * The most rows one partition's store can hold: its lock table has at most
   * {@code Integer.MAX_VALUE} locks, its regions as many words.
   */
  static int defaultMaxRows(int regions, int lockCoverage) {
    return (int) Math.min(Integer.MAX_VALUE - 8, (long) Integer.MAX_VALUE * lockCoverage
        / regions);
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

  /** The store regions: the value columns, then {@value #EXISTS} when there is one. */
  int regions() {
    return valueNames.size() + (insertsAndDeletes ? 1 : 0);
  }

  /** The value columns (the state's rows hold these, after the key). */
  int values() {
    return valueNames.size();
  }

  /** The store region of {@value #EXISTS}, or -1 in a state without inserts and deletes. */
  int existsRegion() {
    return insertsAndDeletes ? valueNames.size() : -1;
  }

  /** The store region of value column {@code name} (or of {@value #EXISTS}), or -1. */
  int region(String column) {
    int i = valueNames.indexOf(column);
    return i < 0 && insertsAndDeletes && EXISTS.equals(column) ? valueNames.size() : i;
  }

  /** The type of store region {@code region}. */
  ValueType regionType(int region) {
    return region == valueNames.size() ? ValueType.INT32 : valueTypes.get(region);
  }

  /** The store regions' names: the value columns, then {@value #EXISTS} when there is one. */
  List<String> regionNames() {
    List<String> names = new ArrayList<>(valueNames);
    if (insertsAndDeletes) {
      names.add(EXISTS);
    }
    return names;
  }

  Algorithm storeAlgorithm() {
    return "csmv".equals(algorithm) ? Algorithm.csmv(Algorithm.DEFAULT_VERSIONS)
        : Algorithm.prStm();
  }

  /** The layout of a partition store of {@code rows} rows (at least one word per region). */
  StoreLayout layout(int rows) {
    List<RegionSpec> specs = new ArrayList<>();
    for (int r = 0; r < regions(); r++) {
      specs.add(new RegionSpec(r < valueNames.size() ? valueNames.get(r) : EXISTS,
          regionType(r).regionType(), Math.max(1, rows), lockCoverage));
    }
    return new StoreLayout(specs);
  }

  /** The DataFrame schema of the state's rows. */
  StructType sparkSchema() {
    StructType s = new StructType().add(keyColumn, intKey ? DataTypes.IntegerType
        : DataTypes.LongType, false);
    for (int r = 0; r < values(); r++) {
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
    return t.bits(v);
  }

  /** A boxed value of type {@code t} from register bits. */
  static Object value(ValueType t, long bits) {
    return t.box(bits);
  }
}
