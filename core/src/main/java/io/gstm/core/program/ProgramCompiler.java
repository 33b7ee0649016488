package io.gstm.core.program;

import static io.gstm.core.program.ValueType.BOOL;
import static io.gstm.core.program.ValueType.FLOAT32;
import static io.gstm.core.program.ValueType.FLOAT64;
import static io.gstm.core.program.ValueType.INT32;
import static io.gstm.core.program.ValueType.INT64;

import io.gstm.core.program.Ast.Loc;
import io.gstm.core.store.StoreLayout;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks a program (names, types, loop bounds, limits) and compiles it to bytecode in one pass
 * over the tree. Constants fold with the engines' own semantics ({@link Semantics}); bounds on
 * reads, writes and instructions are summed along the way (see {@link Analysis}).
 */
final class ProgramCompiler {
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Set<String> FUNCTIONS = Set.of("min", "max", "abs", "sqrt", "len", "sum",
      "int32", "int64", "float32", "float64", "wrapping_add", "wrapping_sub", "wrapping_mul");
  /** The largest PR-STM set capacity the program kernels are built for. */
  static final int MAX_SET_ENTRIES =
      ProgramBinding.CAPACITIES[ProgramBinding.CAPACITIES.length - 1];
  /** Constants loaded in the prologue when the code would load each more than once. */
  static final int HOISTED_CONSTANTS = 4;
  /** Loops with constant ends and at most this many trips are unrolled. */
  static final int UNROLL_TRIPS = 8;
  /** The most trips a {@code max} bound may declare. */
  static final int MAX_TRIPS = 1 << 20;

  private enum Kind { PARAM, ARRAY, REGION, OUTPUT, LOCAL, LOOP }

  /** A declared name. */
  private static final class Sym {
    final Kind kind;
    final String name;
    final ValueType type;
    final int id;
    int reg = -1;
    boolean mutable;
    /** Register bits of an immutable local with a constant value (no register then). */
    Long constant;
    /** Parameter index (ARRAY), region index (REGION) or output index (OUTPUT). */
    int index;
    boolean shared;
    int length;

    Sym(Kind kind, String name, ValueType type, int id) {
      this.kind = kind;
      this.name = name;
      this.type = type;
      this.id = id;
    }
  }

  /**
   * An expression's value: in a register, or a constant not yet loaded (reg -1), with a key
   * when it is the same on every evaluation within the current loop iteration.
   */
  private record Val(ValueType type, int reg, Long constant, String key) {
    /**
     * A constant's key is its type and bits, however it was written (a literal, a constant
     * local, a folded expression): equal keys must mean equal values, or two different words
     * would share one set entry in the bounds.
     */
    Val {
      if (constant != null) {
        key = "#" + type + ":" + constant;
      }
    }

    boolean isConstant() {
      return constant != null;
    }
  }

  private final Program program;
  private final String name;
  /** Constants loaded once in the prologue, and their registers. */
  private final List<Long> hoist;
  private final Map<Long, Integer> hoisted = new HashMap<>();
  private final CodeWriter out = new CodeWriter();
  private final Map<String, Sym> globals = new LinkedHashMap<>();
  private final Deque<Map<String, Sym>> scopes = new ArrayDeque<>();
  private final Set<String> declared = new HashSet<>();
  private PathCounts counts = new PathCounts();
  private KnownWords known = new KnownWords();
  private int nextId;
  /** First register above every live local. */
  private int top;
  private int maxRegisters;
  /** Registers below this hold outputs, parameters and live locals; temporaries are above. */
  private int localsBase;
  private boolean writes;
  private boolean retries;

  private ProgramCompiler(Program program, List<Long> hoist) {
    this.program = program;
    this.name = program.name();
    this.hoist = hoist;
  }

  /**
   * Compiles twice when it pays: the first pass shows which constants the code loads more than
   * once; the second loads those once, in the prologue, into registers of their own.
   */
  static CompiledProgram compile(Program program) {
    if (program == null) {
      throw new ProgramException(null, null, "program must not be null");
    }
    CompiledProgram first = new ProgramCompiler(program, List.of()).run();
    Map<Long, Integer> loads = new HashMap<>();
    int[] code = first.code();
    for (int pc = 0; pc < code.length; pc += Opcodes.length(code[pc] & 0xff)) {
      if ((code[pc] & 0xff) == Opcodes.LDK) {
        long bits = first.constants()[(code[pc] >>> 16 & 0xff) | (code[pc] >>> 24 & 0xff) << 8];
        loads.merge(bits, 1, Integer::sum);
      }
    }
    List<Long> hoist = loads.entrySet().stream().filter(e -> e.getValue() > 1)
        .sorted((a, b) -> b.getValue() - a.getValue()).limit(HOISTED_CONSTANTS)
        .map(Map.Entry::getKey).toList();
    if (hoist.isEmpty()
        || first.registers() + hoist.size() > CompiledProgram.MAX_REGISTERS) {
      return first;
    }
    return new ProgramCompiler(program, hoist).run();
  }

  private ProgramException error(Loc loc, String message) {
    return new ProgramException(name, loc, message);
  }

  // ---- header ---------------------------------------------------------------------------------

  private CompiledProgram run() {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new ProgramException(null, program.loc(),
          "program name '" + name + "' is not a name (letters, digits, _; not starting with a digit)");
    }
    if (program.outputs().size() > CompiledProgram.MAX_OUTPUTS) {
      throw error(program.outputs().get(CompiledProgram.MAX_OUTPUTS).loc(), "too many outputs: "
          + program.outputs().size() + ", the limit is " + CompiledProgram.MAX_OUTPUTS);
    }
    if (program.regions().size() > StoreLayout.MAX_REGIONS) {
      throw error(program.regions().get(StoreLayout.MAX_REGIONS).loc(), "too many regions: "
          + program.regions().size() + ", a store holds at most " + StoreLayout.MAX_REGIONS);
    }
    int outIndex = 0;
    int[] outputRegisters = new int[program.outputs().size()];
    for (Program.Output o : program.outputs()) {
      Sym s = declareGlobal(Kind.OUTPUT, o.name(), o.type(), o.loc());
      s.index = outIndex;
      s.mutable = true;
      s.reg = allocate(o.loc());
      outputRegisters[outIndex++] = s.reg;
    }
    int paramIndex = 0;
    int columns = 0;
    for (Program.Param p : program.params()) {
      if (p.length() < 0 || p.length() > CompiledProgram.MAX_COLUMNS) {
        throw error(p.loc(), "parameter '" + p.name() + "': array length " + p.length()
            + " is out of range 1.." + CompiledProgram.MAX_COLUMNS);
      }
      Sym s = declareGlobal(p.isArray() ? Kind.ARRAY : Kind.PARAM, p.name(), p.type(), p.loc());
      s.index = paramIndex++;
      s.length = p.length();
      columns += p.width();
      if (columns > CompiledProgram.MAX_COLUMNS) {
        throw error(p.loc(), "too many parameter columns: more than "
            + CompiledProgram.MAX_COLUMNS);
      }
    }
    int regionIndex = 0;
    for (Program.RegionDecl r : program.regions()) {
      Sym s = declareGlobal(Kind.REGION, r.name(), r.type(), r.loc());
      s.index = regionIndex++;
      s.shared = r.shared();
    }
    // Prologue: outputs start at 0, scalar parameters are loaded once.
    for (int reg : outputRegisters) {
      emit(Opcodes.LDK, reg, constant(0L, program.loc()), program.loc());
    }
    int slot = 0;
    for (Program.Param p : program.params()) {
      if (!p.isArray()) {
        Sym s = globals.get(p.name());
        s.reg = allocate(p.loc());
        emit(Opcodes.LDP, s.reg, slot, p.loc());
      }
      slot += p.width();
    }
    for (long bits : hoist) {
      int r = allocate(program.loc());
      emit(Opcodes.LDK, r, constant(bits, program.loc()), program.loc());
      hoisted.put(bits, r);
    }
    localsBase = top;
    scopes.push(new HashMap<>());
    block(program.body());
    scopes.pop();
    emit(Opcodes.RET, 0, 0, 0);
    if (out.here() > CompiledProgram.MAX_CODE) {
      throw error(program.loc(), "the program compiles to " + out.here()
          + " instruction words, more than the limit " + CompiledProgram.MAX_CODE);
    }
    if (counts.steps > CompiledProgram.MAX_STEPS) {
      throw error(program.loc(), "one attempt may execute up to " + counts.steps
          + " instructions, more than the limit " + CompiledProgram.MAX_STEPS
          + "; lower the loops' bounds");
    }
    Analysis analysis = new Analysis(counts.reads,
        new Analysis.Locks(counts.lockEntries, counts.rowLockEntries), counts.writeEntries,
        counts.sums, counts.steps, !writes, retries);
    if (analysis.setEntries() > MAX_SET_ENTRIES) {
      throw error(program.loc(), "one attempt may touch up to " + analysis.setEntries()
          + " words (reads and writes at distinct indices, loops at their bounds), more than "
          + "the largest transaction set, " + MAX_SET_ENTRIES + " entries; use fewer accesses "
          + "or smaller loop bounds");
    }
    if (counts.sums > 0 && writes) {
      throw error(program.loc(), "sum() reads a range for a read-only program, but this "
          + "program also writes a region");
    }
    if (counts.sums > 1) {
      throw error(program.loc(), "sum() may run " + counts.sums + " times in one attempt; a "
          + "transaction holds one range");
    }
    int[] words = out.words();
    long[] pool = out.pool();
    return new CompiledProgram(name, program.params(), program.regions(), program.outputs(),
        program.tag(),
        new CompiledProgram.Body(words, pool, Math.max(maxRegisters, 1), outputRegisters),
        analysis);
  }

  private Sym declareGlobal(Kind kind, String n, ValueType type, Loc loc) {
    checkName(n, loc);
    if (type == null || type == BOOL) {
      throw error(loc, "'" + n + "' must have a numeric type (int32, int64, float32, float64)");
    }
    Sym s = new Sym(kind, n, type, nextId++);
    globals.put(n, s);
    declared.add(n);
    return s;
  }

  private void checkName(String n, Loc loc) {
    if (n == null || !NAME.matcher(n).matches()) {
      throw error(loc, "'" + n + "' is not a name (letters, digits, _; not starting with a digit)");
    }
    if (globals.containsKey(n) || lookupLocal(n) != null) {
      throw error(loc, "'" + n + "' is already declared");
    }
    if (FUNCTIONS.contains(n) || ValueType.ofKeyword(n) != null || n.equals("true")
        || n.equals("false")) {
      throw error(loc, "'" + n + "' is a reserved name");
    }
  }

  private Sym lookupLocal(String n) {
    for (Map<String, Sym> scope : scopes) {
      Sym s = scope.get(n);
      if (s != null) {
        return s;
      }
    }
    return null;
  }

  private Sym lookup(String n, Loc loc) {
    Sym s = lookupLocal(n);
    if (s == null) {
      s = globals.get(n);
    }
    if (s == null) {
      throw error(loc, "'" + n + "' is not declared"
          + (FUNCTIONS.contains(n) ? " (it is a function: call it with parentheses)" : ""));
    }
    return s;
  }

  // ---- registers, constants, code -------------------------------------------------------------

  private int allocate(Loc loc) {
    int r = top++;
    if (top > CompiledProgram.MAX_REGISTERS) {
      throw error(loc, "the program needs more than " + CompiledProgram.MAX_REGISTERS
          + " registers (locals, parameters, outputs and temporaries); use fewer locals or "
          + "split long expressions");
    }
    maxRegisters = Math.max(maxRegisters, top);
    return r;
  }

  private int constant(long bits, Loc loc) {
    int k = out.constant(bits, CompiledProgram.MAX_CONSTANTS);
    if (k < 0) {
      throw error(loc, "more than " + CompiledProgram.MAX_CONSTANTS + " distinct constants");
    }
    return k;
  }

  private void emit(int op, int a, int b, int c) {
    out.emit(op, a, b, c);
    counts.steps++;
  }

  /** An instruction whose b and c hold a 16-bit operand. */
  private void emit(int op, int a, int wide, Loc loc) {
    if (wide > 0xffff) {
      throw error(loc, "operand " + wide + " exceeds 16 bits");
    }
    emit(op, a, wide & 0xff, wide >>> 8);
  }

  /** Emits a branch to a later label; returns the position to patch. */
  private int branch(int op, int reg) {
    int at = out.here();
    emit(op, reg, 0, 0);
    return at;
  }

  private void jumpBack(int target) {
    emit(Opcodes.JMP, target & 0xff, target >>> 8 & 0xff, target >>> 16 & 0xff);
  }

  /**
   * The register for the result of an instruction over {@code operands}: the lowest operand
   * temporary (temporaries are a stack, so every one above it is dead once the instruction has
   * read its operands), else a fresh one.
   */
  private int result(Loc loc, Val... operands) {
    int lowest = Integer.MAX_VALUE;
    for (Val v : operands) {
      if (v.reg >= localsBase) {
        lowest = Math.min(lowest, v.reg);
      }
    }
    if (lowest == Integer.MAX_VALUE) {
      return allocate(loc);
    }
    top = lowest + 1;
    return lowest;
  }

  /** The value in a register, loading a constant into a fresh one. */
  private int reg(Val v, Loc loc) {
    if (v.reg >= 0) {
      return v.reg;
    }
    Integer h = hoisted.get(v.constant);
    if (h != null) {
      return h;
    }
    int r = allocate(loc);
    emit(Opcodes.LDK, r, constant(v.constant, loc), loc);
    return r;
  }

  /**
   * Moves {@code v} into {@code target}: rewrites the destination of the instruction that
   * produced a temporary when nothing jumps in between, else a MOV.
   */
  private void moveInto(int target, Val v, Loc loc) {
    if (v.reg == target) {
      return;
    }
    if (v.reg < 0) {
      emit(Opcodes.LDK, target, constant(v.constant, loc), loc);
      return;
    }
    int last = out.rewritableLast();
    if (v.reg >= localsBase && last >= 0 && writesA(out.wordAt(last))
        && (out.wordAt(last) >>> 8 & 0xff) == v.reg) {
      out.setWord(last, (out.wordAt(last) & ~0xff00) | target << 8);
      return;
    }
    emit(Opcodes.MOV, target, v.reg, 0);
  }

  private static boolean writesA(int w) {
    return switch (Opcodes.format(w & 0xff)) {
      case AB, ABC, CONST, SLOT, ELEMENT, REGION_READ, REGION_SUM, REGION_LEN, CONVERT -> true;
      default -> false;
    };
  }

  // ---- statements -----------------------------------------------------------------------------

  private void block(List<Ast.Stmt> stmts) {
    for (Ast.Stmt s : stmts) {
      statement(s);
      top = localsBase; // temporaries die with their statement
    }
  }

  private void statement(Ast.Stmt s) {
    if (s instanceof Ast.Let let) {
      letStatement(let);
    } else if (s instanceof Ast.Assign a) {
      assign(a);
    } else if (s instanceof Ast.Store st) {
      store(st);
    } else if (s instanceof Ast.If i) {
      ifStatement(i);
    } else if (s instanceof Ast.For f) {
      forStatement(f);
    } else if (s instanceof Ast.Retry) {
      retries = true;
      emit(Opcodes.RETRY, 0, 0, 0);
    } else if (s instanceof Ast.Abort a) {
      Val code = convert(expr(a.code()), INT32, a.code().loc(), "the abort code");
      emit(Opcodes.ABORT, reg(code, a.loc()), 0, 0);
    } else {
      emit(Opcodes.RET, 0, 0, 0);
    }
  }

  private void letStatement(Ast.Let let) {
    checkName(let.name(), let.loc());
    Val v = expr(let.value());
    ValueType type = let.declared() != null ? let.declared() : v.type;
    v = convert(v, type, let.value().loc(), "the value of '" + let.name() + "'");
    Sym s = new Sym(Kind.LOCAL, let.name(), type, nextId++);
    s.mutable = let.mutable();
    if (!let.mutable() && v.isConstant()) {
      s.constant = v.constant;
    } else if (!let.mutable() && v.reg >= 0 && v.reg < localsBase && v.key != null) {
      // An immutable name for a value that cannot change while it is in scope (a parameter,
      // another let, the loop variable within its iteration): the same register, no copy.
      s.reg = v.reg;
    } else {
      // The local takes the next register above the live ones; the value is moved into it.
      int target = localsBase;
      if (target >= top) {
        allocate(let.loc());
      }
      moveInto(target, v, let.loc());
      localsBase = target + 1;
      s.reg = target;
      top = Math.max(top, localsBase);
    }
    scopes.peek().put(let.name(), s);
  }

  private void assign(Ast.Assign a) {
    Sym s = lookup(a.name(), a.loc());
    if (!(s.kind == Kind.LOCAL || s.kind == Kind.OUTPUT) || !s.mutable) {
      throw error(a.loc(), "'" + a.name() + "' cannot be assigned: "
          + switch (s.kind) {
            case PARAM, ARRAY -> "it is a parameter";
            case REGION -> "it is a region (write region[index] = value)";
            case LOOP -> "it is a loop variable";
            default -> "it was declared with let (use var for a variable)";
          });
    }
    Val v = convert(expr(a.value()), s.type, a.value().loc(), "'" + a.name() + "'");
    moveInto(s.reg, v, a.loc());
  }

  private void store(Ast.Store st) {
    Sym s = lookup(st.region(), st.loc());
    if (s.kind != Kind.REGION) {
      throw error(st.loc(), "'" + st.region() + "' is not a region; only regions are written "
          + "with [index]");
    }
    if (s.shared) {
      throw error(st.loc(), "region '" + st.region() + "' is declared shared (read outside the "
          + "read set, written by no transaction); it cannot be written");
    }
    Val index = index(st.index(), "the index into '" + st.region() + "'");
    Val value = convert(expr(st.value()), s.type, st.value().loc(),
        "a word of '" + st.region() + "'");
    int ri = reg(index, st.loc());
    int rv = reg(value, st.loc());
    emit(Opcodes.WR, s.index, ri, rv);
    writes = true;
    String key = index.key == null ? null : s.name + "[" + index.key + "]";
    if (key == null || !known.written.contains(key)) {
      counts.writeEntries++;
    }
    if (key == null || !known.locked.contains(key)) {
      counts.lockEntries++;
    }
    lockRow(index.key);
    if (key != null) {
      known.written.add(key);
      known.locked.add(key);
    }
  }

  private void ifStatement(Ast.If i) {
    Val c = expr(i.condition());
    if (c.type != BOOL) {
      throw error(i.condition().loc(), "the condition of 'if' must be bool, got " + c.type);
    }
    if (c.isConstant()) {
      nested(c.constant != 0 ? i.then() : i.otherwise());
      unreachable(() -> nested(c.constant != 0 ? i.otherwise() : i.then()));
      return;
    }
    int jz = branch(Opcodes.JZ, c.reg);
    top = localsBase;
    PathCounts before = counts;
    KnownWords knownBefore = known;
    counts = new PathCounts();
    known = knownBefore.copy();
    nested(i.then());
    PathCounts thenCounts = counts;
    KnownWords thenKnown = known;
    counts = new PathCounts();
    known = knownBefore.copy();
    if (i.otherwise().isEmpty()) {
      out.bind(jz);
    } else {
      int jmp = out.here();
      emit(Opcodes.JMP, 0, 0, 0);
      out.bind(jz);
      nested(i.otherwise());
      out.bind(jmp);
    }
    PathCounts elseCounts = counts;
    KnownWords elseKnown = known;
    before.addMax(thenCounts, elseCounts);
    counts = before;
    knownBefore.addCommon(thenKnown, elseKnown);
    known = knownBefore;
  }

  /**
   * Checks code that can never run (the other side of a constant condition, the body of a loop
   * of no trips) as if it could, then drops what it compiled: an error there is still reported,
   * but it adds no instructions and nothing to the bounds.
   */
  private void unreachable(Runnable compile) {
    CodeWriter.Mark mark = out.mark();
    PathCounts savedCounts = counts;
    KnownWords savedKnown = known;
    int savedTop = top;
    int savedBase = localsBase;
    boolean savedWrites = writes;
    boolean savedRetries = retries;
    counts = new PathCounts();
    known = savedKnown.copy();
    compile.run();
    out.reset(mark);
    counts = savedCounts;
    known = savedKnown;
    top = savedTop;
    localsBase = savedBase;
    writes = savedWrites;
    retries = savedRetries;
  }

  /** A nested block with its own scope. */
  private void nested(List<Ast.Stmt> stmts) {
    int savedBase = localsBase;
    scopes.push(new HashMap<>());
    block(stmts);
    scopes.pop();
    localsBase = savedBase;
    top = savedBase;
  }

  private void forStatement(Ast.For f) {
    checkName(f.variable(), f.loc());
    int savedBase = localsBase;
    // Hidden locals, reserved before the ends are evaluated: the variable, the end, the step.
    int ri = localsBase;
    int rEnd = localsBase + 1;
    int rOne = localsBase + 2;
    top = localsBase;
    for (int i = 0; i < 3; i++) {
      allocate(f.loc());
    }
    localsBase += 3;
    Val from = expr(f.from());
    Val to = expr(f.to());
    if (from.type != INT32 || to.type != INT32) {
      throw error(f.loc(), "loop bounds must be int32, got " + from.type + " .. " + to.type);
    }
    long trips;
    boolean checked = false;
    if (from.isConstant() && to.isConstant()) {
      trips = Math.max(0, (long) (int) (long) to.constant - (int) (long) from.constant);
      if (trips > MAX_TRIPS) {
        throw error(f.loc(), "loop of " + trips + " trips exceeds the limit " + MAX_TRIPS);
      }
      if (trips <= UNROLL_TRIPS) {
        // A short loop with constant ends is unrolled: the variable becomes a constant in each
        // copy, so indices into array parameters fold and branches on it vanish.
        localsBase = savedBase;
        top = savedBase;
        int first = (int) (long) from.constant;
        for (int i = 0; i < Math.max(trips, 1); i++) {
          final boolean never = i >= trips; // no trip: the body is checked, not kept
          Sym v = new Sym(Kind.LOCAL, f.variable(), INT32, nextId++);
          v.constant = (long) (first + i);
          Map<String, Sym> scope = new HashMap<>();
          scope.put(f.variable(), v);
          scopes.push(scope);
          if (never) {
            unreachable(() -> nested(f.body()));
          } else {
            nested(f.body());
          }
          scopes.pop();
        }
        return;
      }
    } else if (f.max() != null) {
      if (f.max() < 0 || f.max() > MAX_TRIPS) {
        throw error(f.loc(), "loop bound max " + f.max() + " is out of range 0.." + MAX_TRIPS);
      }
      trips = f.max();
      checked = true;
    } else {
      throw error(f.loc(), "loop without a bound: 'for " + f.variable() + " in a .. b' needs "
          + "constant ends or 'max N' (the most trips; a transaction with more ends LOOP_LIMIT)");
    }
    moveInto(ri, from, f.loc());
    moveInto(rEnd, to, f.loc());
    if (checked) {
      emit(Opcodes.LOOP, ri, rEnd, 0);
      out.word((int) trips);
    }
    emit(Opcodes.LDK, rOne, constant(1L, f.loc()), f.loc());
    Sym v = new Sym(Kind.LOOP, f.variable(), INT32, nextId++);
    v.reg = ri;
    PathCounts before = counts;
    KnownWords knownBefore = known;
    counts = new PathCounts();
    known = knownBefore.copy();
    int loopTop = out.here();
    out.label();
    int rc = allocate(f.loc());
    emit(Opcodes.LT, rc, ri, rEnd);
    int exit = branch(Opcodes.JZ, rc);
    top = localsBase;
    Map<String, Sym> scope = new HashMap<>();
    scope.put(f.variable(), v);
    scopes.push(scope);
    int bodyBase = localsBase;
    block(f.body());
    scopes.pop();
    localsBase = bodyBase;
    top = localsBase;
    emit(Opcodes.WADD, ri, ri, rOne); // i < end, so i + 1 cannot overflow: no check needed
    jumpBack(loopTop);
    out.bind(exit);
    PathCounts body = counts;
    counts = before;
    counts.addTimes(body, trips);
    counts.steps += 2; // the last check of the condition, which leaves the loop
    known = knownBefore;
    localsBase = savedBase;
    top = savedBase;
  }

  // ---- expressions ----------------------------------------------------------------------------

  private Val index(Ast.Expr e, String what) {
    Val v = expr(e);
    if (v.type != INT32) {
      throw error(e.loc(), what + " must be int32, got " + v.type
          + (v.type == INT64 ? " (convert it with int32(...))" : ""));
    }
    return v;
  }

  private Val convert(Val v, ValueType to, Loc loc, String what) {
    if (v.type == to) {
      return v;
    }
    if (!to.acceptsImplicitly(v.type)) {
      throw error(loc, what + " must be " + to + ", got " + v.type
          + (v.type.isNumeric() && to.isNumeric() ? " (narrowing: convert it with " + to.keyword()
              + "(...))" : ""));
    }
    return cast(v, to, loc);
  }

  /** Any conversion (widening or explicit). */
  private Val cast(Val v, ValueType to, Loc loc) {
    if (v.type == to) {
      return v;
    }
    if (to == BOOL) {
      throw error(loc, "cannot convert " + v.type + " to bool (compare it instead)");
    }
    int mode = v.type.code() << 4 | to.code();
    String key = v.key == null ? null : to.keyword() + "(" + v.key + ")";
    if (v.isConstant()) {
      return new Val(to, -1, Semantics.convert(v.constant, v.type.code(), to.code()), key);
    }
    int r = result(loc, v);
    emit(Opcodes.CVT, r, v.reg, mode);
    return new Val(to, r, null, key);
  }

  private Val expr(Ast.Expr e) {
    if (e instanceof Ast.IntLit i) {
      long bits = i.type() == INT32 ? (long) (int) i.value() : i.value();
      return new Val(i.type(), -1, bits, "#" + bits);
    }
    if (e instanceof Ast.FloatLit f) {
      long bits = f.type() == FLOAT32 ? Semantics.bits((float) f.value())
          : Semantics.bits(f.value());
      return new Val(f.type(), -1, bits, "#" + f.type() + bits);
    }
    if (e instanceof Ast.BoolLit b) {
      return new Val(BOOL, -1, b.value() ? 1L : 0L, "#" + b.value());
    }
    if (e instanceof Ast.Name n) {
      return name(n);
    }
    if (e instanceof Ast.Index ix) {
      return indexed(ix);
    }
    if (e instanceof Ast.Unary u) {
      return unary(u);
    }
    if (e instanceof Ast.Binary b) {
      return binary(b);
    }
    return call((Ast.Call) e);
  }

  private Val name(Ast.Name n) {
    Sym s = lookup(n.name(), n.loc());
    return switch (s.kind) {
      case REGION -> throw error(n.loc(), "region '" + n.name() + "' needs an index: "
          + n.name() + "[i]");
      case ARRAY -> throw error(n.loc(), "parameter '" + n.name() + "' is an array of "
          + s.length + "; index it: " + n.name() + "[i]");
      case PARAM -> new Val(s.type, s.reg, null, "p" + s.id);
      case OUTPUT -> new Val(s.type, s.reg, null, null);
      case LOOP -> new Val(s.type, s.reg, null, "v" + s.id);
      case LOCAL -> s.constant != null ? new Val(s.type, -1, s.constant, "#" + s.constant)
          : new Val(s.type, s.reg, null, s.mutable ? null : "l" + s.id);
    };
  }

  private Val indexed(Ast.Index ix) {
    Sym s = lookup(ix.name(), ix.loc());
    if (s.kind == Kind.ARRAY) {
      Val i = index(ix.index(), "the index into '" + ix.name() + "'");
      String key = i.key == null ? null : "a" + s.id + "[" + i.key + "]";
      int r;
      if (i.isConstant()) {
        int e = (int) (long) i.constant;
        if (e < 0 || e >= s.length) {
          throw error(ix.loc(), "index " + e + " is out of range for parameter '" + ix.name()
              + "' of " + s.length + " elements");
        }
        r = allocate(ix.loc());
        emit(Opcodes.LDP, r, paramSlot(s) + e, ix.loc());
      } else {
        r = result(ix.loc(), i);
        emit(Opcodes.LDPA, r, s.index, i.reg);
      }
      return new Val(s.type, r, null, key);
    }
    if (s.kind != Kind.REGION) {
      throw error(ix.loc(), "'" + ix.name() + "' is not a region or an array parameter");
    }
    Val i = index(ix.index(), "the index into '" + ix.name() + "'");
    int ri = reg(i, ix.loc());
    int r = result(ix.loc(), new Val(INT32, ri, null, null));
    emit(s.shared ? Opcodes.RDS : Opcodes.RD, r, s.index, ri);
    // Every read counts for CSMV, whose snapshot reads of a shared region are versioned too.
    counts.reads++;
    if (!s.shared) {
      String key = i.key == null ? null : s.name + "[" + i.key + "]";
      if (key == null || !known.locked.contains(key)) {
        counts.lockEntries++;
      }
      lockRow(i.key);
      if (key != null) {
        known.locked.add(key);
      }
    }
    return new Val(s.type, r, null, null);
  }

  /**
   * Counts the lock of a locked access at index key {@code index} (null: not stable) for the
   * bound under shared locks ({@link Analysis#rowLockEntries}): a second access at the same
   * index adds nothing whatever its region.
   */
  private void lockRow(String index) {
    if (index == null || !known.rows.contains(index)) {
      counts.rowLockEntries++;
    }
    if (index != null) {
      known.rows.add(index);
    }
  }

  private int paramSlot(Sym s) {
    int slot = 0;
    for (int p = 0; p < s.index; p++) {
      slot += program.params().get(p).width();
    }
    return slot;
  }

  private Val unary(Ast.Unary u) {
    Val v = expr(u.operand());
    switch (u.op()) {
      case "!" -> {
        if (v.type != BOOL) {
          throw error(u.loc(), "'!' needs a bool, got " + v.type);
        }
        String key = v.key == null ? null : "!" + v.key;
        if (v.isConstant()) {
          return new Val(BOOL, -1, v.constant ^ 1, key);
        }
        int r = result(u.loc(), v);
        emit(Opcodes.NOT, r, v.reg, 0);
        return new Val(BOOL, r, null, key);
      }
      case "-" -> {
        if (!v.type.isNumeric()) {
          throw error(u.loc(), "'-' needs a number, got " + v.type);
        }
        return unaryOp(Opcodes.NEG + v.type.code(), v, "-", u.loc());
      }
      default -> {
        if (!v.type.isInteger()) {
          throw error(u.loc(), "'~' needs an integer, got " + v.type);
        }
        return unaryOp(Opcodes.BNOT + v.type.code(), v, "~", u.loc());
      }
    }
  }

  private Val unaryOp(int op, Val v, String name, Loc loc) {
    String key = v.key == null ? null : name + "(" + v.key + ")";
    if (v.isConstant()) {
      try {
        return new Val(v.type, -1, Semantics.unary(op, v.constant), key);
      } catch (Semantics.Fault e) {
        // -MIN or abs(MIN): left to run time, where it ends the transaction OVERFLOW
      }
    }
    int rv = reg(v, loc);
    int r = result(loc, new Val(v.type, rv, null, null));
    emit(op, r, rv, 0);
    return new Val(v.type, r, null, key);
  }

  private Val binary(Ast.Binary b) {
    String op = b.op();
    if (op.equals("&&") || op.equals("||")) {
      return logic(b);
    }
    Val l = expr(b.left());
    Val r = expr(b.right());
    switch (op) {
      case "+", "-", "*", "/", "%" -> {
        ValueType t = numeric(l, r, op, b.loc());
        int base = switch (op) {
          case "+" -> Opcodes.ADD;
          case "-" -> Opcodes.SUB;
          case "*" -> Opcodes.MUL;
          case "/" -> Opcodes.DIV;
          default -> Opcodes.REM;
        };
        return arith(base + t.code(), t, cast(l, t, b.loc()), cast(r, t, b.loc()), op, b.loc());
      }
      case "<", "<=", ">", ">=" -> {
        ValueType t = numeric(l, r, op, b.loc());
        Val a = cast(l, t, b.loc());
        Val c = cast(r, t, b.loc());
        boolean swap = op.equals(">") || op.equals(">=");
        int base = op.equals("<") || op.equals(">") ? Opcodes.LT : Opcodes.LE;
        return compare(base + t.code(), swap ? c : a, swap ? a : c, op, b.loc());
      }
      case "==", "!=" -> {
        int base = op.equals("==") ? Opcodes.EQ : Opcodes.NE;
        if (l.type == BOOL || r.type == BOOL) {
          if (l.type != r.type) {
            throw error(b.loc(), "'" + op + "' compares a bool with " + (l.type == BOOL ? r.type
                : l.type));
          }
          return compare(base, l, r, op, b.loc());
        }
        ValueType t = ValueType.promote(l.type, r.type);
        return compare(base + t.code(), cast(l, t, b.loc()), cast(r, t, b.loc()), op, b.loc());
      }
      case "&", "|", "^" -> {
        int base = switch (op) {
          case "&" -> Opcodes.AND;
          case "|" -> Opcodes.OR;
          default -> Opcodes.XOR;
        };
        if (l.type == BOOL && r.type == BOOL) {
          return arith(base, BOOL, l, r, op, b.loc());
        }
        if (!l.type.isInteger() || !r.type.isInteger()) {
          throw error(b.loc(), "'" + op + "' needs two integers or two bools, got " + l.type
              + " and " + r.type);
        }
        ValueType t = ValueType.promote(l.type, r.type);
        return arith(base + t.code(), t, cast(l, t, b.loc()), cast(r, t, b.loc()), op, b.loc());
      }
      default -> { // shifts
        if (!l.type.isInteger() || !r.type.isInteger()) {
          throw error(b.loc(), "'" + op + "' needs integers, got " + l.type + " and " + r.type);
        }
        int base = switch (op) {
          case "<<" -> Opcodes.SHL;
          case ">>" -> Opcodes.SHR;
          default -> Opcodes.USHR;
        };
        // The shift count is used modulo the width (as in Java); an int64 count is narrowed.
        Val count = r.type == INT64 ? cast(r, INT32, b.loc()) : r;
        return arith(base + l.type.code(), l.type, l, count, op, b.loc());
      }
    }
  }

  private ValueType numeric(Val l, Val r, String op, Loc loc) {
    if (!l.type.isNumeric() || !r.type.isNumeric()) {
      throw error(loc, "'" + op + "' needs numbers, got " + l.type + " and " + r.type);
    }
    return ValueType.promote(l.type, r.type);
  }

  private Val arith(int op, ValueType type, Val a, Val b, String name, Loc loc) {
    String key = a.key == null || b.key == null ? null
        : "(" + a.key + name + b.key + ")";
    if (a.isConstant() && b.isConstant()) {
      try {
        return new Val(type, -1, Semantics.binary(op, a.constant, b.constant), key);
      } catch (Semantics.Fault e) {
        // left to run time, where it ends the transaction DIVIDE_BY_ZERO or OVERFLOW
      }
    }
    // Integer identities: x + 0, x - 0, x * 1, 1 * x (exact in two's complement).
    boolean integer = type == INT32 || type == INT64;
    if (integer && b.isConstant() && (b.constant == 0 && (op == Opcodes.ADD + type.code()
        || op == Opcodes.SUB + type.code()) || b.constant == 1 && op == Opcodes.MUL + type.code())) {
      return new Val(type, a.reg, a.constant, key);
    }
    if (integer && a.isConstant() && a.constant == 1 && op == Opcodes.MUL + type.code()) {
      return new Val(type, b.reg, b.constant, key);
    }
    int ra = reg(a, loc);
    int rb = reg(b, loc);
    int r = result(loc, new Val(type, ra, null, null), new Val(type, rb, null, null));
    emit(op, r, ra, rb);
    return new Val(type, r, null, key);
  }

  private Val compare(int op, Val a, Val b, String name, Loc loc) {
    Val v = arith(op, BOOL, a, b, name, loc);
    return v;
  }

  /** Short-circuit && and ||: the right side runs only when it decides. */
  private Val logic(Ast.Binary b) {
    boolean and = b.op().equals("&&");
    Val l = expr(b.left());
    if (l.type != BOOL) {
      throw error(b.left().loc(), "'" + b.op() + "' needs bools, got " + l.type);
    }
    if (l.isConstant()) {
      if ((l.constant != 0) != and) {
        // false && x, true || x: x never runs, but it must still be a well-typed bool
        unreachable(() -> {
          Val r = expr(b.right());
          if (r.type != BOOL) {
            throw error(b.right().loc(), "'" + b.op() + "' needs bools, got " + r.type);
          }
        });
        return l;
      }
      Val r = expr(b.right());
      if (r.type != BOOL) {
        throw error(b.right().loc(), "'" + b.op() + "' needs bools, got " + r.type);
      }
      return r;
    }
    int result = allocate(b.loc());
    moveInto(result, l, b.loc());
    int skip = branch(and ? Opcodes.JZ : Opcodes.JNZ, result);
    PathCounts before = counts;
    KnownWords knownBefore = known;
    counts = new PathCounts();
    known = knownBefore.copy();
    int savedTop = top;
    Val r = expr(b.right());
    if (r.type != BOOL) {
      throw error(b.right().loc(), "'" + b.op() + "' needs bools, got " + r.type);
    }
    moveInto(result, r, b.loc());
    top = savedTop;
    out.bind(skip);
    before.add(counts);
    counts = before;
    known = knownBefore;
    String key = l.key == null || r.key == null ? null : "(" + l.key + b.op() + r.key + ")";
    return new Val(BOOL, result, null, key);
  }

  private Val call(Ast.Call c) {
    String fn = c.function();
    List<Ast.Expr> args = c.args();
    ValueType castTo = ValueType.ofKeyword(fn);
    if (castTo != null && castTo != BOOL) {
      arity(c, 1);
      Val v = expr(args.get(0));
      return cast(v, castTo, c.loc());
    }
    switch (fn) {
      case "min", "max" -> {
        arity(c, 2);
        Val a = expr(args.get(0));
        Val b = expr(args.get(1));
        ValueType t = numeric(a, b, fn, c.loc());
        int base = fn.equals("min") ? Opcodes.MIN : Opcodes.MAX;
        return arith(base + t.code(), t, cast(a, t, c.loc()), cast(b, t, c.loc()), fn, c.loc());
      }
      case "wrapping_add", "wrapping_sub", "wrapping_mul" -> {
        arity(c, 2);
        Val a = expr(args.get(0));
        Val b = expr(args.get(1));
        if (!a.type.isInteger() || !b.type.isInteger()) {
          throw error(c.loc(), fn + " needs integers, got " + a.type + " and " + b.type
              + " (float arithmetic never overflows: use + - *)");
        }
        ValueType t = ValueType.promote(a.type, b.type);
        int base = switch (fn) {
          case "wrapping_add" -> Opcodes.WADD;
          case "wrapping_sub" -> Opcodes.WSUB;
          default -> Opcodes.WMUL;
        };
        return arith(base + t.code(), t, cast(a, t, c.loc()), cast(b, t, c.loc()), fn, c.loc());
      }
      case "abs" -> {
        arity(c, 1);
        Val a = expr(args.get(0));
        if (!a.type.isNumeric()) {
          throw error(c.loc(), "abs needs a number, got " + a.type);
        }
        return unaryOp(Opcodes.ABS + a.type.code(), a, "abs", c.loc());
      }
      case "sqrt" -> {
        arity(c, 1);
        Val a = expr(args.get(0));
        if (!a.type.isFloat()) {
          throw error(c.loc(), "sqrt needs float32 or float64, got " + a.type
              + " (convert it with float64(...))");
        }
        return unaryOp(Opcodes.SQRT + (a.type == FLOAT32 ? 0 : 1), a, "sqrt", c.loc());
      }
      case "len" -> {
        arity(c, 1);
        Sym s = regionArg(c, 0);
        int r = allocate(c.loc());
        emit(Opcodes.LEN, r, s.index, 0);
        return new Val(INT32, r, null, "len" + s.id);
      }
      case "sum" -> {
        arity(c, 3);
        Sym s = regionArg(c, 0);
        if (!s.type.isInteger() || s.shared) {
          throw error(c.loc(), "sum needs a transactional int32 or int64 region, '" + s.name
              + "' is " + (s.shared ? "shared" : s.type.toString()));
        }
        Val first = index(args.get(1), "the first word of sum");
        Val count = index(args.get(2), "the count of sum");
        int rf = reg(first, c.loc());
        int rc = reg(count, c.loc());
        int r = result(c.loc(), new Val(INT32, rf, null, null), new Val(INT32, rc, null, null));
        emit(Opcodes.SUM, r, s.index, rf);
        out.word(rc);
        counts.sums++;
        return new Val(INT64, r, null, null);
      }
      default -> throw error(c.loc(), "unknown function '" + fn + "' (known: min, max, abs, "
          + "sqrt, len, sum, int32, int64, float32, float64, wrapping_add, wrapping_sub, "
          + "wrapping_mul)");
    }
  }

  private void arity(Ast.Call c, int n) {
    if (c.args().size() != n) {
      throw error(c.loc(), c.function() + " takes " + n + " argument" + (n == 1 ? "" : "s")
          + ", got " + c.args().size());
    }
  }

  private Sym regionArg(Ast.Call c, int i) {
    Ast.Expr a = c.args().get(i);
    if (!(a instanceof Ast.Name n)) {
      throw error(a.loc(), c.function() + " needs a region name as its first argument");
    }
    Sym s = lookup(n.name(), n.loc());
    if (s.kind != Kind.REGION) {
      throw error(a.loc(), "'" + n.name() + "' is not a region");
    }
    return s;
  }
}
