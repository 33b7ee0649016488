package io.gstm.spark.state;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * SQL over named {@link TxState}s, as stored procedures of a catalog plugin. Register the
 * catalog ({@code spark.sql.catalog.gstm=io.gstm.spark.state.TxStateCatalog}) and a state
 * ({@code state.register()}, under its name), then:
 *
 * <pre>
 * CREATE TEMP VIEW transfers AS SELECT id, src, dst, amount FROM ...;
 * CALL gstm.apply(state => 'bank', transactions => 'transfers',
 *                 programs => 'program transfer(...) ...', id_column => 'id',
 *                 batch_id => 7, outcomes_view => 'transfer_outcomes');
 * SELECT outcome, count(*) FROM transfer_outcomes GROUP BY outcome;
 * CALL gstm.snapshot('bank', 'bank_now');        -- the rows at the last committed epoch
 * CALL gstm.checkpoint('bank', '/checkpoints/bank');
 * </pre>
 *
 * Each procedure returns one row: {@code apply} the epoch, batch id, whether the batch id was a
 * replay, and the counts; the others the epoch. A procedure runs on the driver, like
 * {@code TxState.apply}, and raises the same errors.
 */
public final class TxStateCatalog implements ProcedureCatalog {
  private static final Map<String, TxState> STATES = new ConcurrentHashMap<>();
  private String name;

  /** Makes {@code state} callable from SQL under its name; replaces a state of that name. */
  static void register(TxState state) {
    STATES.put(state.name(), state);
  }

  static void unregister(TxState state) {
    STATES.remove(state.name(), state);
  }

  static TxState named(String state) {
    TxState s = STATES.get(state);
    if (s == null) {
      throw new IllegalArgumentException("state: no TxState named '" + state + "' is registered "
          + "(TxState.register()); registered: " + STATES.keySet());
    }
    return s;
  }

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Identifier[] listProcedures(String[] namespace) {
    return new Identifier[] {Identifier.of(new String[0], "apply"),
        Identifier.of(new String[0], "snapshot"), Identifier.of(new String[0], "checkpoint")};
  }

  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    return switch (ident.name().toLowerCase(java.util.Locale.ROOT)) {
      case "apply" -> new Proc("apply", "Applies a table of transactions to a named TxState",
          new ProcedureParameter[] {in("state", DataTypes.StringType, null),
              in("transactions", DataTypes.StringType, null),
              in("programs", DataTypes.StringType, null),
              in("type_column", DataTypes.StringType, "NULL"),
              in("id_column", DataTypes.StringType, "NULL"),
              in("batch_id", DataTypes.LongType, "NULL"),
              in("outcomes_view", DataTypes.StringType, "NULL")},
          new StructType().add("epoch", DataTypes.LongType).add("batch_id", DataTypes.LongType)
              .add("replayed", DataTypes.BooleanType).add("transactions", DataTypes.LongType)
              .add("committed", DataTypes.LongType).add("cross_partition", DataTypes.LongType)
              .add("outcomes", DataTypes.StringType));
      case "snapshot" -> new Proc("snapshot", "Registers a TxState's rows as a temp view",
          new ProcedureParameter[] {in("state", DataTypes.StringType, null),
              in("view", DataTypes.StringType, null)},
          new StructType().add("epoch", DataTypes.LongType));
      case "checkpoint" -> new Proc("checkpoint", "Checkpoints a TxState to a path",
          new ProcedureParameter[] {in("state", DataTypes.StringType, null),
              in("path", DataTypes.StringType, null)},
          new StructType().add("epoch", DataTypes.LongType));
      default -> throw new IllegalArgumentException("no gstm procedure '" + ident.name()
          + "' (apply, snapshot, checkpoint)");
    };
  }

  private static ProcedureParameter in(String name, DataType type, String defaultSql) {
    ProcedureParameter.Builder b = ProcedureParameter.in(name, type);
    if (defaultSql != null) {
      b.defaultValue(defaultSql);
    }
    return b.build();
  }

  /** One procedure, bound as it is (its parameters do not depend on the call). */
  private static final class Proc implements UnboundProcedure, BoundProcedure {
    private final String name;
    private final String description;
    private final ProcedureParameter[] params;
    private final StructType result;

    Proc(String name, String description, ProcedureParameter[] params, StructType result) {
      this.name = name;
      this.description = description;
      this.params = params;
      this.result = result;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String description() {
      return description;
    }

    @Override
    public BoundProcedure bind(StructType inputType) {
      return this;
    }

    @Override
    public ProcedureParameter[] parameters() {
      return params;
    }

    @Override
    public boolean isDeterministic() {
      return false;
    }

    @Override
    public Iterator<Scan> call(InternalRow input) {
      SparkSession spark = SparkSession.active();
      TxState state = named(string(input, 0));
      Object[] row;
      switch (name) {
        case "apply" -> {
          TxApply a = state.transactions(spark.table(string(input, 1)), string(input, 2));
          if (!input.isNullAt(3)) {
            a.typeColumn(string(input, 3));
          }
          if (!input.isNullAt(4)) {
            a.idColumn(string(input, 4));
          }
          if (!input.isNullAt(5)) {
            a.batchId(input.getLong(5));
          }
          ApplyResult r = a.run();
          if (!input.isNullAt(6) && r.outcomes() != null) {
            r.outcomes().createOrReplaceTempView(string(input, 6));
          }
          row = new Object[] {r.epoch(), r.batchId(), r.replayed(), r.transactions(),
              r.committed(), r.crossPartition(),
              UTF8String.fromString(r.outcomeCounts().toString())};
        }
        case "snapshot" -> {
          state.toDF().createOrReplaceTempView(string(input, 1));
          row = new Object[] {state.epoch()};
        }
        default -> {
          state.checkpoint(string(input, 1));
          row = new Object[] {state.epoch()};
        }
      }
      InternalRow out = new GenericInternalRow(row);
      StructType schema = result;
      List<Scan> scans = new ArrayList<>();
      scans.add(new LocalScan() {
        @Override
        public InternalRow[] rows() {
          return new InternalRow[] {out};
        }

        @Override
        public StructType readSchema() {
          return schema;
        }
      });
      return scans.iterator();
    }

    private static String string(InternalRow input, int i) {
      if (input.isNullAt(i)) {
        throw new IllegalArgumentException("argument " + (i + 1) + " must not be null");
      }
      return input.getUTF8String(i).toString();
    }
  }
}
