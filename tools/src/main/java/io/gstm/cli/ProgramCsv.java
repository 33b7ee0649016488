package io.gstm.cli;

import io.gstm.core.batch.Outcome;
import io.gstm.core.program.Column;
import io.gstm.core.program.CompiledProgram;
import io.gstm.core.program.Program;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.ValueType;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.StoreLayout;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVPrinter;
import org.apache.commons.csv.CSVRecord;

/**
 * The CSV files of {@code gstm run}. State: one column per region, headed by its name, one row
 * per word (a shorter region leaves its later cells empty). Transactions: a {@code program}
 * column (optional when there is one program) and one column per parameter column the programs
 * read, by name ({@code acct[0]} for an element of an array parameter). Errors name the file,
 * the line and the column.
 */
final class ProgramCsv {
  private ProgramCsv() {}

  private static final CSVFormat IN = CSVFormat.DEFAULT.builder().setHeader()
      .setSkipHeaderRecord(true).setIgnoreSurroundingSpaces(true).setTrim(true).get();

  /** A store's regions read from CSV: the layout and the contents as register bits. */
  record State(StoreLayout layout, long[][] contents) {}

  /** The type of every region the programs use; two programs must agree. */
  static Map<String, ValueType> regionTypes(ProgramSet programs) {
    Map<String, ValueType> types = new LinkedHashMap<>();
    Map<String, String> by = new LinkedHashMap<>();
    for (CompiledProgram p : programs.programs()) {
      for (Program.RegionDecl r : p.regions()) {
        ValueType old = types.putIfAbsent(r.name(), r.type());
        by.putIfAbsent(r.name(), p.name());
        if (old != null && old != r.type()) {
          throw new IllegalArgumentException("region '" + r.name() + "' is " + old
              + " in program '" + by.get(r.name()) + "' but " + r.type() + " in program '"
              + p.name() + "'");
        }
      }
    }
    return types;
  }

  static State readState(Path file, ProgramSet programs, int lockCoverage) {
    Map<String, ValueType> types = regionTypes(programs);
    checkReadable("state", file);
    try (Reader in = Files.newBufferedReader(file); CSVParser csv = IN.parse(in)) {
      List<String> header = csv.getHeaderNames();
      checkNotEmpty(file, header, "a column per region, headed by its name, then a row per word");
      for (String region : types.keySet()) {
        if (!header.contains(region)) {
          throw new IllegalArgumentException(file + ": no column for region '" + region
              + "' (the programs use it); the file has " + header);
        }
      }
      List<List<Long>> values = new ArrayList<>();
      List<Boolean> ended = new ArrayList<>();
      for (String h : header) {
        values.add(new ArrayList<>());
        ended.add(false);
      }
      for (CSVRecord row : csv) {
        checkWidth(file, row, header.size());
        for (int c = 0; c < header.size(); c++) {
          String name = header.get(c);
          String cell = c < row.size() ? row.get(c) : "";
          if (cell.isEmpty()) {
            ended.set(c, true);
            continue;
          }
          if (ended.get(c)) {
            throw new IllegalArgumentException(file + ", line " + (row.getRecordNumber() + 1)
                + ": region '" + name + "' has a value after an empty cell");
          }
          ValueType t = types.getOrDefault(name, null);
          if (t != null) {
            values.get(c).add(parse(cell, t, file, row.getRecordNumber() + 1, name));
          }
        }
      }
      List<RegionSpec> regions = new ArrayList<>();
      List<long[]> contents = new ArrayList<>();
      for (Map.Entry<String, ValueType> e : types.entrySet()) {
        List<Long> v = values.get(header.indexOf(e.getKey()));
        if (v.isEmpty()) {
          throw new IllegalArgumentException(file + ": region '" + e.getKey()
              + "' has no values");
        }
        regions.add(new RegionSpec(e.getKey(), e.getValue().regionType(), v.size(),
            Math.min(lockCoverage, v.size())));
        contents.add(v.stream().mapToLong(Long::longValue).toArray());
      }
      return new State(new StoreLayout(regions), contents.toArray(new long[0][]));
    } catch (IOException | UncheckedIOException e) {
      throw unreadable("state", file, e);
    }
  }

  /** A file without even a header row is refused as empty, saying what it should hold. */
  private static void checkNotEmpty(Path file, List<String> header, String expected) {
    if (header.isEmpty()) {
      throw new IllegalArgumentException(file + ": the file is empty (expected a header row: "
          + expected + ")");
    }
  }

  /**
   * A row with more cells than the header has columns is refused: the extra cells belong to no
   * column, so the row is not what its writer meant (a stray comma, a shifted row).
   */
  private static void checkWidth(Path file, CSVRecord row, int columns) {
    if (row.size() > columns) {
      throw new IllegalArgumentException(file + ", line " + (row.getRecordNumber() + 1) + ": "
          + row.size() + " cells but the header has " + columns + " column"
          + (columns == 1 ? "" : "s"));
    }
  }

  /** A missing file or a directory is an IllegalArgumentException naming the option. */
  static void checkReadable(String option, Path file) {
    if (Files.isDirectory(file)) {
      throw new IllegalArgumentException(option + ": " + file + " is a directory, not a file");
    }
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(option + ": no such file " + file);
    }
  }

  /**
   * A file that cannot be read (or written) as {@code option} asks: an IllegalArgumentException
   * naming the option, the file and why (not UTF-8 text, broken CSV quoting, no permission).
   */
  static IllegalArgumentException unreadable(String option, Path file, Exception e) {
    Throwable cause = e instanceof UncheckedIOException u && u.getCause() != null
        ? u.getCause() : e;
    String why = cause instanceof CharacterCodingException ? "not UTF-8 text"
        : cause instanceof NoSuchFileException ? "no such file"
        : cause instanceof AccessDeniedException ? "permission denied"
        : cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    return new IllegalArgumentException(option + ": cannot use " + file + ": " + why, e);
  }

  /** A value of {@code type} as register bits; a bad one names the place. */
  static long parse(String cell, ValueType type, Object file, long line, String column) {
    try {
      return switch (type) {
        case INT32 -> Integer.parseInt(cell);
        case INT64 -> Long.parseLong(cell);
        case FLOAT32 -> Float.floatToRawIntBits(Float.parseFloat(cell));
        case FLOAT64 -> Double.doubleToRawLongBits(Double.parseDouble(cell));
        case BOOL -> throw new IllegalArgumentException("bool");
      };
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(file + ", line " + line + ", column '" + column
          + "': '" + cell + "' is not a " + type);
    }
  }

  static String format(long bits, ValueType type) {
    return switch (type) {
      case INT32 -> Integer.toString((int) bits);
      case FLOAT32 -> Float.toString(Float.intBitsToFloat((int) bits));
      case FLOAT64 -> Double.toString(Double.longBitsToDouble(bits));
      default -> Long.toString(bits);
    };
  }

  /** Transactions read from CSV: a type per row and every column the programs read. */
  record Transactions(int[] types, List<Column> columns) {}

  static Transactions readTransactions(Path file, ProgramSet programs) {
    Map<String, ValueType> columnTypes = new LinkedHashMap<>();
    for (CompiledProgram p : programs.programs()) {
      List<String> names = p.columnNames();
      List<ValueType> types = p.columnTypes();
      for (int i = 0; i < names.size(); i++) {
        ValueType old = columnTypes.putIfAbsent(names.get(i), types.get(i));
        if (old != null && old != types.get(i)) {
          throw new IllegalArgumentException("column '" + names.get(i) + "' is read as " + old
              + " by one program and as " + types.get(i) + " by program '" + p.name() + "'");
        }
      }
    }
    checkReadable("transactions", file);
    try (Reader in = Files.newBufferedReader(file); CSVParser csv = IN.parse(in)) {
      List<String> header = csv.getHeaderNames();
      checkNotEmpty(file, header, "'program' and the parameters' columns, then a row per "
          + "transaction");
      boolean named = header.contains("program");
      if (!named && programs.size() > 1) {
        throw new IllegalArgumentException(file + ": a 'program' column is needed to choose "
            + "among " + programs.size() + " programs");
      }
      List<Integer> types = new ArrayList<>();
      Map<String, List<Long>> values = new LinkedHashMap<>();
      for (String c : columnTypes.keySet()) {
        values.put(c, new ArrayList<>());
      }
      for (CSVRecord row : csv) {
        checkWidth(file, row, header.size());
        long line = row.getRecordNumber() + 1;
        int type = 0;
        if (named) {
          String name = row.get("program");
          try {
            type = programs.type(name);
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ", line " + line + ": " + e.getMessage());
          }
        }
        types.add(type);
        List<String> needs = programs.get(type).columnNames();
        for (Map.Entry<String, ValueType> c : columnTypes.entrySet()) {
          String cell = row.isMapped(c.getKey()) && row.isSet(c.getKey())
              ? row.get(c.getKey()) : "";
          if (cell.isEmpty()) {
            if (needs.contains(c.getKey())) {
              throw new IllegalArgumentException(file + ", line " + line + ": column '"
                  + c.getKey() + "' is empty or missing, and program '"
                  + programs.get(type).name() + "' reads it");
            }
            values.get(c.getKey()).add(0L);
          } else {
            values.get(c.getKey()).add(parse(cell, c.getValue(), file, line, c.getKey()));
          }
        }
      }
      if (types.isEmpty()) {
        throw new IllegalArgumentException(file + ": no transactions");
      }
      List<Column> columns = new ArrayList<>();
      for (Map.Entry<String, ValueType> c : columnTypes.entrySet()) {
        columns.add(Column.ofBits(c.getKey(), c.getValue(),
            values.get(c.getKey()).stream().mapToLong(Long::longValue).toArray()));
      }
      return new Transactions(types.stream().mapToInt(Integer::intValue).toArray(), columns);
    } catch (IOException | UncheckedIOException e) {
      throw unreadable("transactions", file, e);
    }
  }

  static void writeState(Path file, StoreLayout layout, long[][] contents) throws IOException {
    try (Writer out = Files.newBufferedWriter(file);
        CSVPrinter csv = new CSVPrinter(out, CSVFormat.DEFAULT)) {
      List<String> header = new ArrayList<>();
      int rows = 0;
      for (RegionSpec r : layout.regions()) {
        header.add(r.name());
        rows = Math.max(rows, r.length());
      }
      csv.printRecord(header);
      for (int i = 0; i < rows; i++) {
        List<String> row = new ArrayList<>();
        for (int r = 0; r < layout.regionCount(); r++) {
          ValueType t = ValueType.of(layout.region(r).type());
          row.add(i < contents[r].length ? format(contents[r][i], t) : "");
        }
        csv.printRecord(row);
      }
    }
  }

  /**
   * Per transaction (in input order): program, outcome, postponements, code, then, when
   * {@code serials} is given (per batch, per transaction of the batch, as {@link SerialPlaces}),
   * its place in a serial order, then the outputs.
   */
  static void writeOutcomes(Path file, List<ProgramResult> results, List<int[]> orders,
      List<long[]> serials, ProgramSet programs) throws IOException {
    List<String> outputs = new ArrayList<>();
    for (CompiledProgram p : programs.programs()) {
      for (Program.Output o : p.outputs()) {
        if (!outputs.contains(o.name())) {
          outputs.add(o.name());
        }
      }
    }
    try (Writer out = Files.newBufferedWriter(file);
        CSVPrinter csv = new CSVPrinter(out, CSVFormat.DEFAULT)) {
      List<String> header = new ArrayList<>(List.of("tx", "program", "outcome",
          "semantic_conflicts", "abort_code"));
      if (serials != null) {
        header.add("serial");
      }
      header.addAll(outputs);
      csv.printRecord(header);
      long first = 0;
      for (int b = 0; b < results.size(); b++) {
        ProgramResult r = results.get(b);
        int[] order = orders.get(b);
        int n = r.batch().txCount();
        // Rows in input order: position i of the (maybe pre-sorted) batch came from order[i].
        int[] at = new int[n];
        for (int i = 0; i < n; i++) {
          at[order[i]] = i;
        }
        for (int k = 0; k < n; k++) {
          int t = at[k];
          CompiledProgram p = programs.get(r.batch().type(t));
          List<String> row = new ArrayList<>();
          row.add(Long.toString(first + k));
          row.add(p.name());
          row.add(r.outcome(t).name());
          row.add(Integer.toString(r.postponements(t)));
          row.add(r.outcome(t) == Outcome.USER_ABORT ? Integer.toString(r.abortCode(t)) : "");
          if (serials != null) {
            long place = serials.get(b)[t];
            row.add(place == SerialPlaces.NONE ? "" : Long.toString(place));
          }
          for (String o : outputs) {
            int idx = p.outputIndex(o);
            row.add(idx < 0 || r.outcome(t) != Outcome.COMMITTED ? ""
                : format(r.outputBits(t, o), p.outputs().get(idx).type()));
          }
          csv.printRecord(row);
        }
        first += n;
      }
    }
  }
}
