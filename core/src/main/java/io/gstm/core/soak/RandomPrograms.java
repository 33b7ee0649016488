package io.gstm.core.soak;

import io.gstm.core.program.Column;
import io.gstm.core.program.CompiledProgram;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramBinding;
import io.gstm.core.program.ProgramException;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.ValueType;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.CsmvChecks;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded random programs over random stores, as text: well-typed by construction, with loops,
 * branches, reads and writes at computed (sometimes out-of-range) indices, divisions (sometimes
 * by zero), integer arithmetic that sometimes overflows (state and column values at the int32
 * and int64 limits) and its wrapping twins, retries, aborts and outputs, so that every outcome a
 * program can have turns up.
 * The program tests, the fuzzers and {@code gstm soak} draw from it; a seed always gives the
 * same case.
 */
public final class RandomPrograms {
  private static final ValueType[] NUMERIC = {ValueType.INT32, ValueType.INT64, ValueType.FLOAT32,
      ValueType.FLOAT64};
  /** The region types a CSMV store holds. */
  private static final ValueType[] NARROW = {ValueType.INT32, ValueType.FLOAT32};

  /** A generated case: a store, its contents, the programs and a batch for them. */
  public record Case(long seed, StoreLayout layout, long[][] initial, String text,
      ProgramSet programs, ProgramBatch batch) {
    @Override
    public String toString() {
      return "seed " + seed;
    }
  }

  private final SplittableRandom rnd;
  private final boolean sums;
  private final boolean csmv;
  private final boolean rowLocks;
  private final List<RegionSpec> regions = new ArrayList<>();
  private final StringBuilder out = new StringBuilder();
  /** Names visible now, with their types and whether they can be assigned. */
  private final List<String[]> vars = new ArrayList<>();
  private int names;
  private int depth;
  /** Region reads nested inside the expression being generated. */
  private int nesting;

  private RandomPrograms(long seed, boolean sums, boolean csmv, boolean rowLocks) {
    this.rnd = new SplittableRandom(seed);
    this.sums = sums;
    this.csmv = csmv;
    this.rowLocks = rowLocks;
  }

  /**
   * @param sums whether programs may use sum() (a range read the history does not record: leave
   *     it out where the history checker orders the transactions)
   */
  public static Case generate(long seed, int transactions, int threadsPerBlock, int blocks,
      boolean sums) {
    return generate(seed, transactions, threadsPerBlock, blocks, sums, false);
  }

  /**
   * As {@link #generate(long, int, int, int, boolean)}; with {@code csmv} the programs fit a
   * CSMV store: 32-bit regions only, no {@code retry}, at most
   * {@link CsmvChecks#MAX_WRITES} words written and
   * {@link ProgramBinding#CSMV_MAX_READS} read by an update transaction.
   */
  public static Case generate(long seed, int transactions, int threadsPerBlock, int blocks,
      boolean sums, boolean csmv) {
    return generate(seed, transactions, threadsPerBlock, blocks, sums, csmv, false);
  }

  /**
   * As {@link #generate(long, int, int, int, boolean, boolean)}; with {@code rowLocks} every
   * region has the first's length and lock coverage and shares its locks
   * ({@link RegionSpec#withLocksOf}), so that PR-STM sizes the sets by index, not by word.
   */
  public static Case generate(long seed, int transactions, int threadsPerBlock, int blocks,
      boolean sums, boolean csmv, boolean rowLocks) {
    // A draw whose programs may touch more words than a transaction set holds (the checker
    // refuses it) is drawn again from the next stream.
    for (long draw = seed; ; draw += 1L << 32) {
      try {
        return new RandomPrograms(draw, sums, csmv, rowLocks).make(seed, transactions,
            threadsPerBlock, blocks);
      } catch (Oversized e) {
        // next draw
      }
    }
  }

  /** The draw's programs exceed a bound the checker enforces. */
  private static final class Oversized extends RuntimeException {
    Oversized() {
      super(null, null, false, false);
    }
  }

  private Case make(long seed, int n, int threadsPerBlock, int blocks) {
    int nr = 1 + rnd.nextInt(3);
    for (int r = 0; r < nr; r++) {
      ValueType t = csmv ? NARROW[rnd.nextInt(2)] : NUMERIC[rnd.nextInt(4)];
      int len = 4 + rnd.nextInt(40);
      int coverage = 1 + rnd.nextInt(3);
      if (rowLocks && r > 0) {
        regions.add(new RegionSpec("r" + r, t.regionType(), regions.get(0).length(),
            regions.get(0).lockCoverage()).withLocksOf("r0"));
      } else {
        regions.add(new RegionSpec("r" + r, t.regionType(), len, coverage));
      }
    }
    StoreLayout layout = new StoreLayout(regions);
    long[][] initial = new long[nr][];
    for (int r = 0; r < nr; r++) {
      initial[r] = new long[regions.get(r).length()];
      for (int i = 0; i < initial[r].length; i++) {
        initial[r][i] = literalBits(ValueType.of(regions.get(r).type()));
      }
    }
    int programs = 1 + rnd.nextInt(3);
    List<List<String[]>> params = new ArrayList<>();
    for (int p = 0; p < programs; p++) {
      params.add(program(p));
    }
    String text = out.toString();
    ProgramSet set;
    try {
      set = ProgramSet.parse(text);
    } catch (ProgramException e) {
      // Loop ends that fold to constants can wrap around int32 into more trips than allowed.
      if (e.getMessage().contains("more than the largest transaction set")
          || e.getMessage().contains("sum()") || e.getMessage().contains("trips exceeds")) {
        throw new Oversized();
      }
      throw new IllegalStateException("generated an invalid program (seed " + seed + "): "
          + e.getMessage() + "\n" + text, e);
    }
    if (csmv) {
      for (CompiledProgram p : set.programs()) {
        if (p.analysis().writeEntries() > CsmvChecks.MAX_WRITES
            || (!p.analysis().readOnly()
                && p.analysis().reads() > ProgramBinding.CSMV_MAX_READS)) {
          throw new Oversized();
        }
      }
    }
    int[] types = new int[n];
    for (int t = 0; t < n; t++) {
      types[t] = rnd.nextInt(programs);
    }
    ProgramBatch.Builder b = ProgramBatch.builder(set).types(types).grid(threadsPerBlock, blocks);
    java.util.Set<String> done = new java.util.HashSet<>();
    for (List<String[]> ps : params) {
      for (String[] p : ps) {
        if (done.add(p[0])) {
          ValueType type = ValueType.ofKeyword(p[1]);
          long[] bits = new long[n];
          for (int t = 0; t < n; t++) {
            bits[t] = literalBits(type);
          }
          b.column(Column.ofBits(p[0], type, bits));
        }
      }
    }
    return new Case(seed, layout, initial, text, set, b.build());
  }

  /** One program; returns its scalar columns as {name, type}. */
  private List<String[]> program(int index) {
    vars.clear();
    List<String[]> params = new ArrayList<>();
    int np = 1 + rnd.nextInt(4);
    StringBuilder sig = new StringBuilder();
    for (int i = 0; i < np; i++) {
      // Column names are shared by programs with the same type: c<type><i>.
      ValueType t = NUMERIC[rnd.nextInt(4)];
      String name = "c" + t.keyword() + "_" + i;
      params.add(new String[] {name, t.keyword()});
      vars.add(new String[] {name, t.keyword(), "param"});
      sig.append(i == 0 ? "" : ", ").append(name).append(": ").append(t.keyword());
    }
    out.append("program p").append(index).append("(").append(sig).append(")\n");
    out.append("    regions ");
    for (int r = 0; r < regions.size(); r++) {
      out.append(r == 0 ? "" : ", ").append("r").append(r).append(": ")
          .append(ValueType.of(regions.get(r).type()).keyword());
    }
    out.append('\n');
    int no = rnd.nextInt(3);
    if (no > 0) {
      out.append("    outputs ");
      for (int o = 0; o < no; o++) {
        ValueType t = NUMERIC[rnd.nextInt(4)];
        out.append(o == 0 ? "" : ", ").append("o").append(o).append(": ").append(t.keyword());
        vars.add(new String[] {"o" + o, t.keyword(), "var"});
      }
      out.append('\n');
    }
    out.append("    tag ").append(rnd.nextInt(3)).append("\n{\n");
    depth = 0;
    block(2 + rnd.nextInt(5));
    out.append("}\n\n");
    return params;
  }

  private void block(int statements) {
    int scope = vars.size();
    for (int s = 0; s < statements; s++) {
      statement();
    }
    while (vars.size() > scope) {
      vars.remove(vars.size() - 1);
    }
  }

  private void indent() {
    out.append("  ".repeat(depth + 1));
  }

  private void statement() {
    int kind = rnd.nextInt(100);
    indent();
    if (kind < 25) {
      ValueType t = NUMERIC[rnd.nextInt(4)];
      String name = "v" + names++;
      boolean mutable = rnd.nextBoolean();
      out.append(mutable ? "var " : "let ").append(name).append(": ").append(t.keyword())
          .append(" = ").append(expr(t, 2)).append(";\n");
      vars.add(new String[] {name, t.keyword(), mutable ? "var" : "let"});
    } else if (kind < 45) {
      int r = rnd.nextInt(regions.size());
      ValueType t = ValueType.of(regions.get(r).type());
      out.append("r").append(r).append("[").append(index(r)).append("] = ").append(expr(t, 2))
          .append(";\n");
    } else if (kind < 57) {
      String[] v = assignable();
      if (v == null) {
        out.append("let w").append(names++).append(" = 1;\n");
        return;
      }
      out.append(v[0]).append(" = ").append(expr(ValueType.ofKeyword(v[1]), 2)).append(";\n");
    } else if (kind < 72 && depth < 2) {
      out.append("if (").append(bool(2)).append(") {\n");
      depth++;
      block(1 + rnd.nextInt(3));
      depth--;
      indent();
      out.append("}");
      if (rnd.nextBoolean()) {
        out.append(" else {\n");
        depth++;
        block(1 + rnd.nextInt(3));
        depth--;
        indent();
        out.append("}");
      }
      out.append('\n');
    } else if (kind < 82 && depth < 2) {
      String var = "i" + names++;
      if (rnd.nextBoolean()) {
        out.append("for ").append(var).append(" in ").append(rnd.nextInt(2)).append(" .. ")
            .append(rnd.nextInt(4)).append(" {\n");
      } else {
        String from = expr(ValueType.INT32, 1);
        out.append("for ").append(var).append(" in ").append(from).append(" .. (")
            .append(from).append(") + (").append(expr(ValueType.INT32, 1))
            .append(") % 4 max 3 {\n");
      }
      depth++;
      vars.add(new String[] {var, "int32", "let"});
      block(1 + rnd.nextInt(3));
      vars.remove(vars.size() - 1);
      depth--;
      indent();
      out.append("}\n");
    } else if (kind < 86) {
      out.append("if (").append(bool(1)).append(csmv ? ") { return; }\n" : ") { retry; }\n");
    } else if (kind < 90) {
      out.append("if (").append(bool(1)).append(") { abort(").append(expr(ValueType.INT32, 1))
          .append("); }\n");
    } else if (kind < 92) {
      out.append("if (").append(bool(1)).append(") { return; }\n");
    } else {
      String[] v = assignable();
      ValueType t = v == null ? null : ValueType.ofKeyword(v[1]);
      if (sums && v != null && t == ValueType.INT64 && intRegion() >= 0) {
        int r = intRegion();
        out.append(v[0]).append(" = sum(r").append(r).append(", ").append(index(r))
            .append(", ").append(rnd.nextInt(regions.get(r).length() + 1)).append(");\n");
      } else {
        int r = rnd.nextInt(regions.size());
        ValueType rt = ValueType.of(regions.get(r).type());
        out.append("r").append(r).append("[").append(index(r)).append("] = r").append(r)
            .append("[").append(index(r)).append("] + ").append(literal(rt)).append(";\n");
      }
    }
  }

  private int intRegion() {
    for (int r = 0; r < regions.size(); r++) {
      if (regions.get(r).type() == RegionType.INT32 || regions.get(r).type() == RegionType.INT64) {
        return r;
      }
    }
    return -1;
  }

  private String[] assignable() {
    List<String[]> c = new ArrayList<>();
    for (String[] v : vars) {
      if (v[2].equals("var")) {
        c.add(v);
      }
    }
    return c.isEmpty() ? null : c.get(rnd.nextInt(c.size()));
  }

  /** An int32 index into region r: usually in range, sometimes not. */
  private String index(int r) {
    String e = expr(ValueType.INT32, 1);
    int roll = rnd.nextInt(10);
    if (roll < 7) {
      return "abs(" + e + ") % len(r" + r + ")";
    }
    if (roll < 9) {
      return Integer.toString(rnd.nextInt(regions.get(r).length()));
    }
    return e;
  }

  private String bool(int budget) {
    int roll = rnd.nextInt(10);
    if (budget > 0 && roll < 2) {
      return "(" + bool(budget - 1) + (rnd.nextBoolean() ? " && " : " || ") + bool(budget - 1)
          + ")";
    }
    if (budget > 0 && roll < 3) {
      return "!(" + bool(budget - 1) + ")";
    }
    ValueType t = NUMERIC[rnd.nextInt(4)];
    String[] ops = {"<", "<=", ">", ">=", "==", "!="};
    return "(" + expr(t, budget) + " " + ops[rnd.nextInt(ops.length)] + " " + expr(t, budget)
        + ")";
  }

  private String expr(ValueType t, int budget) {
    int roll = rnd.nextInt(12);
    if (budget <= 0 || roll < 4) {
      return leaf(t);
    }
    if (roll < 8) {
      String[] ops = t.isInteger() ? new String[] {"+", "-", "*", "/", "%", "&", "|", "^", "<<",
          ">>", ">>>", "wrapping_add", "wrapping_sub", "wrapping_mul"}
          : new String[] {"+", "-", "*", "/", "%"};
      String op = ops[rnd.nextInt(ops.length)];
      String right = op.startsWith("<") || op.startsWith(">") ? expr(ValueType.INT32, budget - 1)
          : expr(t, budget - 1);
      if (op.startsWith("wrapping_")) {
        return op + "(" + expr(t, budget - 1) + ", " + right + ")";
      }
      return "(" + expr(t, budget - 1) + " " + op + " " + right + ")";
    }
    if (roll < 9) {
      return (rnd.nextBoolean() ? "min(" : "max(") + expr(t, budget - 1) + ", "
          + expr(t, budget - 1) + ")";
    }
    if (roll < 10) {
      return rnd.nextBoolean() ? "abs(" + expr(t, budget - 1) + ")" : "-" + leaf(t);
    }
    if (roll < 11 && t.isFloat()) {
      return "sqrt(" + expr(t, budget - 1) + ")";
    }
    ValueType from = NUMERIC[rnd.nextInt(4)];
    return t.keyword() + "(" + expr(from, budget - 1) + ")";
  }

  private String leaf(ValueType t) {
    int roll = rnd.nextInt(10);
    if (roll < 4) {
      List<String[]> c = new ArrayList<>();
      for (String[] v : vars) {
        if (v[1].equals(t.keyword())) {
          c.add(v);
        }
      }
      if (!c.isEmpty()) {
        return c.get(rnd.nextInt(c.size()))[0];
      }
    }
    if (roll < 7 && nesting < 2) {
      List<Integer> c = new ArrayList<>();
      for (int r = 0; r < regions.size(); r++) {
        if (ValueType.of(regions.get(r).type()) == t) {
          c.add(r);
        }
      }
      if (!c.isEmpty()) {
        int r = c.get(rnd.nextInt(c.size()));
        nesting++;
        String read = "r" + r + "[" + index(r) + "]";
        nesting--;
        return read;
      }
    }
    return literal(t);
  }

  private String literal(ValueType t) {
    return switch (t) {
      case INT32 -> Integer.toString(rnd.nextInt(-50, 50));
      case INT64 -> rnd.nextInt(-50, 50) + "L";
      case FLOAT32 -> rnd.nextInt(-200, 200) / 8.0 + "f";
      default -> Double.toString(rnd.nextInt(-200, 200) / 8.0);
    };
  }

  private long literalBits(ValueType t) {
    int v = rnd.nextInt(-50, 50);
    return switch (t) {
      case INT32, INT64 -> limit(v, t);
      case FLOAT32 -> Float.floatToRawIntBits(v / 4.0f);
      default -> Double.doubleToRawLongBits(v / 4.0);
    };
  }

  /**
   * A small integer, except that the two ends of the draw stand for the type's limits: so that
   * arithmetic on the state and the columns overflows now and then, in some transactions of a
   * program and not in others (no extra draw: seeds keep their shape).
   */
  private static long limit(int v, ValueType t) {
    boolean wide = t == ValueType.INT64;
    return v == 49 ? (wide ? Long.MAX_VALUE : Integer.MAX_VALUE)
        : v == -50 ? (wide ? Long.MIN_VALUE : Integer.MIN_VALUE) : v;
  }
}
