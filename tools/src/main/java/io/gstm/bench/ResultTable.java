package io.gstm.bench;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import org.apache.commons.csv.CSVRecord;

/** The rows an experiment measured, in named columns; written as CSV, printed as Markdown. */
public final class ResultTable {
  private final List<String> columns;
  private final List<List<Object>> rows = new ArrayList<>();

  public ResultTable(List<String> columns) {
    if (columns.isEmpty()) {
      throw new IllegalArgumentException("columns: a table needs at least one column");
    }
    this.columns = List.copyOf(columns);
  }

  /** Adds a row: one value per column, in column order (numbers, strings or booleans). */
  public void add(Object... values) {
    if (values.length != columns.size()) {
      throw new IllegalArgumentException("row has " + values.length + " values, the table has "
          + columns.size() + " columns " + columns);
    }
    rows.add(List.of(values));
  }

  public List<String> columns() {
    return columns;
  }

  public List<List<Object>> rows() {
    return List.copyOf(rows);
  }

  public int size() {
    return rows.size();
  }

  /** The value in {@code column} of row {@code row}. */
  public Object value(int row, String column) {
    return rows.get(row).get(index(column));
  }

  /** The value as a number; a string that is not one is an error naming the cell. */
  public double number(int row, String column) {
    Object v = value(row, column);
    if (v instanceof Number n) {
      return n.doubleValue();
    }
    try {
      return Double.parseDouble(String.valueOf(v));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("column " + column + ", row " + row + ": '" + v
          + "' is not a number", e);
    }
  }

  public int index(String column) {
    int i = columns.indexOf(column);
    if (i < 0) {
      throw new IllegalArgumentException("column: no column '" + column + "' in " + columns);
    }
    return i;
  }

  public void writeCsv(Path file) throws IOException {
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        CSVPrinter p = CSVFormat.DEFAULT.builder().setHeader(columns.toArray(String[]::new))
            .get().print(w)) {
      for (List<Object> row : rows) {
        p.printRecord(row.stream().map(ResultTable::format).toList());
      }
    }
  }

  /** Reads a CSV this class wrote (or any with a header row); numbers come back as Double. */
  public static ResultTable readCsv(Path file) throws IOException {
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      var parser = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get()
          .parse(r);
      ResultTable t = new ResultTable(parser.getHeaderNames());
      for (CSVRecord rec : parser) {
        Object[] values = new Object[t.columns.size()];
        for (int c = 0; c < values.length; c++) {
          values[c] = parse(rec.get(c));
        }
        t.add(values);
      }
      return t;
    }
  }

  /** The table in Markdown, numbers to four significant digits. */
  public String toMarkdown() {
    StringBuilder b = new StringBuilder("| ").append(String.join(" | ", columns)).append(" |\n");
    b.append("|").append("---|".repeat(columns.size())).append('\n');
    for (List<Object> row : rows) {
      b.append("| ");
      for (Object v : row) {
        b.append(v instanceof Double || v instanceof Float
            ? String.format(Locale.ROOT, "%.4g", ((Number) v).doubleValue()) : format(v))
            .append(" | ");
      }
      b.setLength(b.length() - 1);
      b.append('\n');
    }
    return b.toString();
  }

  private static String format(Object v) {
    return v instanceof Double d ? Double.toString(d) : String.valueOf(v);
  }

  private static Object parse(String s) {
    try {
      return Double.parseDouble(s);
    } catch (NumberFormatException e) {
      return s;
    }
  }
}
