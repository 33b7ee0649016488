package io.gstm.spark.state;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.program.Column;
import io.gstm.core.program.CompiledProgram;
import io.gstm.core.program.Program;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramReplay;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.ValueType;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.Verdict;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The exact check of one epoch: the whole state as one store (keys ascending), the epoch's
 * transactions as one program batch over it (keys replaced by their global rows), and core's
 * {@link ProgramReplay}: the committed transactions, run one at a time in the recorded serial
 * order from the state before the epoch, commit again with the same outputs and end in the
 * state after it; the others changed nothing.
 */
final class StateReplay {
  private StateReplay() {}

  /** Rows of a state DataFrame by key: key, then the value columns' bits. */
  static TreeMap<Long, long[]> snapshot(Dataset<Row> df, List<ValueType> types) {
    TreeMap<Long, long[]> m = new TreeMap<>();
    for (Row r : df.collectAsList()) {
      long[] v = new long[types.size()];
      for (int i = 0; i < v.length; i++) {
        v[i] = StateSchema.bits(types.get(i), (Number) r.get(1 + i));
      }
      m.put(((Number) r.get(0)).longValue(), v);
    }
    return m;
  }

  /**
   * @param programText the programs, in the order of the apply
   * @param keyParams per program name, its key parameters
   * @param txs the epoch's transactions (with an "id" column)
   * @param outcomes the apply's outcome rows (recordOrder on, txId = id)
   */
  static Verdict verify(String programText, List<String> valueNames,
      List<ValueType> valueTypes, TreeMap<Long, long[]> before, TreeMap<Long, long[]> after,
      Dataset<Row> txs, Dataset<Row> outcomes) {
    List<Program> programs = Program.parse(programText);
    ProgramSet set = ProgramSet.compile(programs);
    Map<Long, Integer> global = new HashMap<>();
    List<Long> keys = new ArrayList<>(before.keySet());
    for (int i = 0; i < keys.size(); i++) {
      global.put(keys.get(i), i);
    }
    List<RegionSpec> specs = new ArrayList<>();
    for (int r = 0; r < valueNames.size(); r++) {
      specs.add(new RegionSpec(valueNames.get(r), valueTypes.get(r).regionType(), keys.size(),
          1));
    }
    StoreLayout layout = new StoreLayout(specs);
    long[][] b = contents(before, keys, valueNames.size());
    long[][] a = contents(after, keys, valueNames.size());

    Map<Long, Row> outById = new HashMap<>();
    for (Row r : outcomes.collectAsList()) {
      outById.put(r.getLong(r.fieldIndex("txId")), r);
    }
    List<Row> rows = txs.collectAsList();
    int n = rows.size();
    int[] types = new int[n];
    byte[] codes = new byte[n];
    int[] codesUser = new int[n];
    Map<String, long[]> cols = new HashMap<>();
    Map<String, ValueType> colTypes = new HashMap<>();
    int slots = Math.max(1, set.maxOutputs());
    long[] outputs = new long[slots * n];
    List<long[]> committed = new ArrayList<>();
    for (int t = 0; t < n; t++) {
      Row tx = rows.get(t);
      Row out = outById.get(tx.getLong(tx.fieldIndex("id")));
      if (out == null) {
        throw new AssertionError("no outcome for transaction " + tx);
      }
      String name = programs.size() == 1 ? programs.get(0).name()
          : tx.getString(tx.fieldIndex("program"));
      int type = set.type(name);
      types[t] = type;
      String oc = out.getString(out.fieldIndex("outcome"));
      Outcome o = Arrays.stream(Outcome.values()).filter(x -> x.name().equals(oc)).findFirst()
          .orElse(Outcome.PENDING);
      codes[t] = (byte) o.code();
      if (o == Outcome.USER_ABORT) {
        codesUser[t] = out.getInt(out.fieldIndex("abortCode"));
      }
      CompiledProgram p = set.get(type);
      Program src = programs.get(type);
      java.util.Set<String> keyParams = ProgramAccess.keys(src, schemaOf(valueNames,
          valueTypes));
      for (Program.Param param : p.params()) {
        long v = 0;
        Object raw = tx.get(tx.fieldIndex(param.name()));
        if (keyParams.contains(param.name())) {
          Integer g = raw == null ? null : global.get(((Number) raw).longValue());
          v = g == null ? 0 : g;
          colTypes.put(param.name(), ValueType.INT32);
        } else {
          v = raw == null ? 0 : StateSchema.bits(param.type(), (Number) raw);
          colTypes.put(param.name(), param.type());
        }
        cols.computeIfAbsent(param.name(), k -> new long[n])[t] = v;
      }
      if (o == Outcome.COMMITTED) {
        committed.add(new long[] {out.getLong(out.fieldIndex("serial")), t});
        for (int oi = 0; oi < p.outputs().size(); oi++) {
          Program.Output po = p.outputs().get(oi);
          Object v = out.get(out.fieldIndex(po.name()));
          outputs[oi * n + t] = StateSchema.bits(po.type(), (Number) v);
        }
      }
    }
    committed.sort((x, y) -> Long.compare(x[0], y[0]));
    int[] order = committed.stream().mapToInt(x -> (int) x[1]).toArray();
    ProgramBatch.Builder bb = ProgramBatch.builder(set).types(types);
    cols.forEach((name, v) -> bb.column(Column.ofBits(name, colTypes.get(name), v)));
    ProgramBatch batch = bb.build();
    BatchResult stats = BatchResult.builder("replay", codes).build();
    ProgramResult result = new ProgramResult(stats, batch, outputs, codesUser);
    return ProgramReplay.verify(result, layout, b, a, order);
  }

  private static StateSchema schemaOf(List<String> names, List<ValueType> types) {
    return new StateSchema("replay", "id", false, names, types, KeyPartitioner.hash(1),
        "prstm", 1, false, Integer.MAX_VALUE);
  }

  private static long[][] contents(TreeMap<Long, long[]> m, List<Long> keys, int regions) {
    long[][] c = new long[regions][keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      long[] v = m.get(keys.get(i));
      for (int r = 0; r < regions; r++) {
        c[r][i] = v[r];
      }
    }
    return c;
  }
}
