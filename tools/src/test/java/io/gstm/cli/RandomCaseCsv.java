package io.gstm.cli;

import io.gstm.core.program.Column;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ValueType;
import io.gstm.core.soak.RandomPrograms;
import java.util.List;

/** A {@link RandomPrograms} case as {@code gstm run}'s input files: its state and transactions. */
final class RandomCaseCsv {
  private RandomCaseCsv() {}

  /** The initial state: a column per region, a row per word. */
  static String state(RandomPrograms.Case c) {
    StringBuilder out = new StringBuilder();
    int rows = 0;
    for (int r = 0; r < c.layout().regionCount(); r++) {
      out.append(r == 0 ? "" : ",").append(c.layout().region(r).name());
      rows = Math.max(rows, c.layout().region(r).length());
    }
    out.append('\n');
    for (int i = 0; i < rows; i++) {
      for (int r = 0; r < c.layout().regionCount(); r++) {
        out.append(r == 0 ? "" : ",");
        if (i < c.initial()[r].length) {
          out.append(ProgramCsv.format(c.initial()[r][i],
              ValueType.of(c.layout().region(r).type())));
        }
      }
      out.append('\n');
    }
    return out.toString();
  }

  /** The batch's transactions, with a 'program' column when {@code named} or needed. */
  static String transactions(RandomPrograms.Case c, boolean named) {
    ProgramBatch b = c.batch();
    boolean program = named || c.programs().size() > 1;
    StringBuilder out = new StringBuilder(program ? "program" : "");
    List<Column> cols = b.columns();
    for (int i = 0; i < cols.size(); i++) {
      out.append(i == 0 && !program ? "" : ",").append(cols.get(i).name());
    }
    out.append('\n');
    for (int t = 0; t < b.txCount(); t++) {
      if (program) {
        out.append(c.programs().get(b.type(t)).name());
      }
      for (int i = 0; i < cols.size(); i++) {
        out.append(i == 0 && !program ? "" : ",")
            .append(ProgramCsv.format(cols.get(i).bits(t), cols.get(i).type()));
      }
      out.append('\n');
    }
    return out.toString();
  }
}
