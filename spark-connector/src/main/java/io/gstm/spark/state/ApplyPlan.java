package io.gstm.spark.state;

import static org.apache.spark.sql.functions.col;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.program.Column;
import io.gstm.core.program.CompiledProgram;
import io.gstm.core.program.Program;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramBinding;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.ValueType;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * One apply's programs bound to the state and to the transactions' columns, checked on the
 * driver before any task runs, and shipped to every task: the programs as bytecode images, the
 * batch columns they read ("slots": each a DataFrame column, or an element of an array column),
 * which slots hold keys, and the outcome columns.
 */
@DefaultSerializer(JavaSerializer.class)
final class ApplyPlan implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Columns every outcome row has; program outputs may not reuse these names. */
  static final List<String> RESERVED = List.of("txId", "epoch", "partition", "program",
      "outcome", "committed", "postponements", "abortCode", "cause", "serial");

  /** A batch column a program reads. */
  @DefaultSerializer(JavaSerializer.class)
  record Slot(String name, ValueType type, boolean key, int source, int element)
      implements Serializable {}

  /**
   * A program's outputs by slot: its output {@code s}, of type {@code types[s]}, fills column
   * {@code columns[s]} (an index into {@link #outputNames}; converted to the column's type).
   */
  record Outputs(int[] columns, ValueType[] types) implements Serializable {}

  final StateSchema state;
  final int[][] images;
  final String[] programNames;
  final Slot[] slots;
  /** Per program: the slots it reads, and of those the key slots. */
  final int[][] slotsOf;
  final int[][] keySlotsOf;
  /** The selected input columns: [type][, id], then the sources of the slots. */
  final String[] selectNames;
  final DataType[] selectTypes;
  final int typeIndex;
  final boolean typeByName;
  final int idIndex;
  final String[] outputNames;
  final ValueType[] outputTypes;
  /** Per program: the output columns it writes (see {@link Outputs}). */
  final Outputs[] outputsOf;
  final boolean rejectCross;
  final boolean recordOrder;
  /** How cross-partition transactions run: null (the setting), auto, mesh or jobs. */
  final String exchange;
  final boolean presort;
  final SemanticPolicy policy;
  final int semanticLimit;
  /** Per program: whether it runs behind the existence guard ({@link KeyExistence}). */
  final boolean[] guarded;
  private transient ProgramSet programSet;

  private ApplyPlan(StateSchema state, int[][] images, String[] programNames, Slot[] slots,
      int[][] slotsOf, int[][] keySlotsOf, String[] selectNames, DataType[] selectTypes,
      int typeIndex, boolean typeByName, int idIndex, String[] outputNames,
      ValueType[] outputTypes, Outputs[] outputsOf, boolean[] guarded, TxApply options) {
    this.state = state;
    this.guarded = guarded;
    this.images = images;
    this.programNames = programNames;
    this.slots = slots;
    this.slotsOf = slotsOf;
    this.keySlotsOf = keySlotsOf;
    this.selectNames = selectNames;
    this.selectTypes = selectTypes;
    this.typeIndex = typeIndex;
    this.typeByName = typeByName;
    this.idIndex = idIndex;
    this.outputNames = outputNames;
    this.outputTypes = outputTypes;
    this.outputsOf = outputsOf;
    this.rejectCross = options.rejectCross;
    this.recordOrder = options.recordOrder;
    this.exchange = options.exchange;
    this.presort = options.presort;
    this.policy = options.policy;
    this.semanticLimit = options.semanticLimit;
  }

  /** The programs, decoded (and verified) once per task JVM. */
  ProgramSet programs() {
    if (programSet == null) {
      List<CompiledProgram> list = new ArrayList<>();
      for (int[] image : images) {
        list.add(CompiledProgram.decode(image));
      }
      programSet = ProgramSet.of(list);
    }
    return programSet;
  }

  int programCount() {
    return images.length;
  }

  /** The program of type code {@code code} from a row's integral type column, or -1. */
  int typeOf(long code) {
    return code >= 0 && code < images.length ? (int) code : -1;
  }

  /**
   * Checks {@code programs} against the state and {@code tx}'s schema and binds them; every
   * problem is an IllegalArgumentException naming the program, column or region.
   */
  static ApplyPlan of(StateSchema state, List<Program> programs, StructType tx,
      TxApply options) {
    if (programs.isEmpty()) {
      throw new IllegalArgumentException("programs: at least 1 program is needed");
    }
    // A state with inserts and deletes checks or clears its rows' existence (KeyExistence).
    boolean[] guarded = new boolean[programs.size()];
    List<Program> given = programs;
    programs = new ArrayList<>();
    for (int i = 0; i < given.size(); i++) {
      guarded[i] = KeyExistence.guarded(given.get(i), state);
      programs.add(KeyExistence.rewrite(given.get(i), state));
    }
    List<CompiledProgram> compiled = new ArrayList<>();
    for (Program p : programs) {
      compiled.add(p.compile());
    }
    ProgramSet set = ProgramSet.of(compiled);
    List<String> columns = Arrays.asList(tx.fieldNames());
    List<String> selectNames = new ArrayList<>();
    List<DataType> selectTypes = new ArrayList<>();

    // Which program each row runs.
    int typeIndex = -1;
    boolean typeByName = true;
    String typeColumn = options.typeColumn;
    if (typeColumn == null && programs.size() > 1) {
      if (!columns.contains("program")) {
        throw new IllegalArgumentException("typeColumn: " + programs.size() + " programs "
            + set.programs().stream().map(CompiledProgram::name).toList() + " but no column "
            + "says which one each row runs: name it with typeColumn(...) (a string column of "
            + "program names, or an integral one of indices); columns: " + columns);
      }
      typeColumn = "program";
    }
    if (typeColumn != null) {
      DataType t = field(tx, typeColumn, "typeColumn").dataType();
      if (t == DataTypes.StringType) {
        typeByName = true;
      } else if (StateSchema.isIntegral(t)) {
        typeByName = false;
      } else {
        throw new IllegalArgumentException("column '" + typeColumn + "' (typeColumn) must hold "
            + "program names (string) or indices (integral), got " + t.simpleString());
      }
      typeIndex = selectNames.size();
      selectNames.add(typeColumn);
      selectTypes.add(typeByName ? DataTypes.StringType : DataTypes.LongType);
    }
    int idIndex = -1;
    if (options.idColumn != null) {
      DataType t = field(tx, options.idColumn, "idColumn").dataType();
      if (!StateSchema.isIntegral(t)) {
        throw new IllegalArgumentException("column '" + options.idColumn + "' (idColumn) must "
            + "be integral, got " + t.simpleString());
      }
      idIndex = selectNames.size();
      selectNames.add(options.idColumn);
      selectTypes.add(DataTypes.LongType);
    }

    Map<String, Slot> slots = new LinkedHashMap<>();
    Map<String, String> slotOwner = new LinkedHashMap<>();
    Map<String, Integer> sourceIndex = new LinkedHashMap<>();
    int n = programs.size();
    int[][] slotsOf = new int[n][];
    int[][] keySlotsOf = new int[n][];
    Map<String, ValueType> outputs = new LinkedHashMap<>();
    for (int ty = 0; ty < n; ty++) {
      Program p = programs.get(ty);
      Set<String> keys = ProgramAccess.keys(p, state);
      if (options.keyColumns != null) {
        for (String k : keys) {
          if (!options.keyColumns.contains(k)) {
            throw new IllegalArgumentException("program '" + p.name() + "' indexes the state "
                + "with parameter '" + k + "', which is not among the key columns "
                + options.keyColumns);
          }
        }
      }
      List<Integer> mine = new ArrayList<>();
      List<Integer> mineKeys = new ArrayList<>();
      for (Program.Param param : p.params()) {
        boolean key = keys.contains(param.name());
        for (int e = 0; e < param.width(); e++) {
          String name = param.column(e);
          Slot prev = slots.get(name);
          if (prev != null) {
            if (prev.type() != param.type() || prev.key() != key) {
              throw new IllegalArgumentException("column '" + name + "': program '"
                  + slotOwner.get(name) + "' reads it as " + describe(prev.type(), prev.key())
                  + " but program '" + p.name() + "' as " + describe(param.type(), key));
            }
          } else {
            // A scalar column of the element's name, else an element of an array column.
            String source = columns.contains(name) || !param.isArray() ? name : param.name();
            int element = source.equals(name) ? -1 : e;
            DataType t = field(tx, source, "program '" + p.name() + "' reads it as "
                + describe(param.type(), key)).dataType();
            DataType scalar = t;
            if (element >= 0) {
              if (!(t instanceof ArrayType at)) {
                throw new IllegalArgumentException("column '" + source + "' holds "
                    + t.simpleString() + " but program '" + p.name() + "' reads it as an array "
                    + "of " + param.width() + " " + param.type() + " (or give columns "
                    + param.column(0) + " ...)");
              }
              scalar = at.elementType();
            }
            boolean ok = key ? StateSchema.isIntegral(scalar) : StateSchema.feeds(scalar,
                param.type());
            if (!ok) {
              throw new IllegalArgumentException("column '" + source + "' holds "
                  + t.simpleString() + " but program '" + p.name() + "' reads it as "
                  + describe(param.type(), key));
            }
            Integer idx = sourceIndex.get(source);
            if (idx == null) {
              idx = selectNames.size();
              sourceIndex.put(source, idx);
              selectNames.add(source);
              DataType canon = key ? DataTypes.LongType : StateSchema.sparkType(param.type());
              selectTypes.add(element >= 0 ? DataTypes.createArrayType(canon) : canon);
            }
            prev = new Slot(name, param.type(), key, idx, element);
            slots.put(name, prev);
            slotOwner.put(name, p.name());
          }
          int s = new ArrayList<>(slots.keySet()).indexOf(name);
          mine.add(s);
          if (key) {
            mineKeys.add(s);
          }
        }
      }
      slotsOf[ty] = mine.stream().mapToInt(Integer::intValue).toArray();
      keySlotsOf[ty] = mineKeys.stream().mapToInt(Integer::intValue).toArray();
      for (Program.Output o : p.outputs()) {
        if (RESERVED.contains(o.name())) {
          throw new IllegalArgumentException("program '" + p.name() + "': output '" + o.name()
              + "' has the name of an outcome column " + RESERVED + "; rename it");
        }
        outputs.merge(o.name(), o.type(), ApplyPlan::widen);
      }
    }
    Slot[] slotArray = slots.values().toArray(new Slot[0]);
    checkBinding(state, set, slotArray);
    String[] outputNames = outputs.keySet().toArray(new String[0]);
    ValueType[] outputTypes = outputs.values().toArray(new ValueType[0]);
    Outputs[] outputsOf = new Outputs[n];
    List<String> columnNames = java.util.Arrays.asList(outputNames);
    for (int ty = 0; ty < n; ty++) {
      List<Program.Output> own = compiled.get(ty).outputs();
      int[] cols = new int[own.size()];
      ValueType[] types = new ValueType[own.size()];
      for (int s = 0; s < cols.length; s++) {
        cols[s] = columnNames.indexOf(own.get(s).name()); // every output is a column
        types[s] = own.get(s).type();
      }
      outputsOf[ty] = new Outputs(cols, types);
    }
    int[][] images = new int[n][];
    String[] names = new String[n];
    for (int ty = 0; ty < n; ty++) {
      images[ty] = compiled.get(ty).encode();
      names[ty] = compiled.get(ty).name();
    }
    return new ApplyPlan(state, images, names, slotArray, slotsOf, keySlotsOf,
        selectNames.toArray(new String[0]), selectTypes.toArray(new DataType[0]), typeIndex,
        typeByName, idIndex, outputNames, outputTypes, outputsOf, guarded, options);
  }

  /** The input columns, cast to what the tasks read. */
  org.apache.spark.sql.Column[] selection() {
    org.apache.spark.sql.Column[] out = new org.apache.spark.sql.Column[selectNames.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = col("`" + selectNames[i].replace("`", "``") + "`").cast(selectTypes[i]);
    }
    return out;
  }

  /** The core's own binding checks (regions, types, set bounds, CSMV limits), on the driver. */
  private static void checkBinding(StateSchema state, ProgramSet set, Slot[] slots) {
    for (int ty = 0; ty < set.size(); ty++) {
      ProgramBatch.Builder b = ProgramBatch.builder(set).types(new int[] {ty});
      for (Slot s : slots) {
        b.column(Column.ofBits(s.name(), s.type(), new long[1]));
      }
      try {
        ProgramBinding.bind(b.build(), state.layout(1), state.storeAlgorithm());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("program '" + set.get(ty).name() + "' on state '"
            + state.name() + "' (" + state.algorithm() + "): " + e.getMessage(), e);
      }
    }
  }

  private static ValueType widen(ValueType a, ValueType b) {
    if (a == b) {
      return a;
    }
    return a.isInteger() && b.isInteger() ? ValueType.INT64 : ValueType.FLOAT64;
  }

  private static String describe(ValueType t, boolean key) {
    return key ? "a key (it indexes the state)" : t.toString();
  }

  private static org.apache.spark.sql.types.StructField field(StructType schema, String name,
      String why) {
    if (!Arrays.asList(schema.fieldNames()).contains(name)) {
      throw new IllegalArgumentException("column '" + name + "' is missing from the "
          + "transactions DataFrame (" + why + "); columns: "
          + Arrays.toString(schema.fieldNames()));
    }
    return schema.apply(name);
  }
}
