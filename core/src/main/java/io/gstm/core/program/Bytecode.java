package io.gstm.core.program;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The versioned image of a compiled program, and the verifier every image passes before it
 * runs. Image words: magic, version, then the header (registers, tag, code and constant
 * counts, the analysis), the names and types of parameters, regions and outputs, the output
 * registers, the constants (two words each) and the code.
 */
final class Bytecode {
  private Bytecode() {}

  static int[] encode(CompiledProgram p) {
    List<Integer> w = new ArrayList<>();
    w.add(CompiledProgram.MAGIC);
    w.add(Opcodes.VERSION);
    w.add(p.registers());
    w.add(p.tag());
    Analysis a = p.analysis();
    for (long v : new long[] {a.reads(), a.lockEntries(), a.rowLockEntries(), a.writeEntries(),
        a.sums(), a.steps()}) {
      w.add((int) v);
      w.add((int) (v >>> 32));
    }
    w.add((a.readOnly() ? 1 : 0) | (a.retries() ? 2 : 0));
    string(w, p.name());
    w.add(p.params().size());
    for (Program.Param q : p.params()) {
      string(w, q.name());
      w.add(q.type().code());
      w.add(q.length());
    }
    w.add(p.regions().size());
    for (Program.RegionDecl r : p.regions()) {
      string(w, r.name());
      w.add(r.type().code());
      w.add(r.shared() ? 1 : 0);
    }
    w.add(p.outputs().size());
    for (int o = 0; o < p.outputs().size(); o++) {
      string(w, p.outputs().get(o).name());
      w.add(p.outputs().get(o).type().code());
      w.add(p.outputRegisters()[o]);
    }
    w.add(p.constants().length);
    for (long c : p.constants()) {
      w.add((int) c);
      w.add((int) (c >>> 32));
    }
    w.add(p.code().length);
    for (int c : p.code()) {
      w.add(c);
    }
    return w.stream().mapToInt(Integer::intValue).toArray();
  }

  private static void string(List<Integer> w, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    w.add(b.length);
    for (int i = 0; i < b.length; i += 4) {
      int word = 0;
      for (int j = 0; j < 4 && i + j < b.length; j++) {
        word |= (b[i + j] & 0xff) << (8 * j);
      }
      w.add(word);
    }
  }

  /** Reads an image, failing with the position of the first bad word. */
  private static final class Reader {
    final int[] w;
    int pos;

    Reader(int[] w) {
      this.w = w;
    }

    int next(String what) {
      if (pos >= w.length) {
        throw bad("the image ends before " + what + " (word " + pos + ")");
      }
      return w[pos++];
    }

    int count(String what, int max) {
      int n = next(what);
      if (n < 0 || n > max) {
        throw bad(what + " " + n + " at word " + (pos - 1) + " is out of range 0.." + max);
      }
      return n;
    }

    long wide(String what) {
      long lo = next(what) & 0xffffffffL;
      return lo | (long) next(what) << 32;
    }

    String string(String what) {
      int n = count(what + " length", 1024);
      byte[] b = new byte[n];
      for (int i = 0; i < n; i += 4) {
        int word = next(what);
        for (int j = 0; j < 4 && i + j < n; j++) {
          b[i + j] = (byte) (word >>> (8 * j));
        }
      }
      return new String(b, StandardCharsets.UTF_8);
    }

    ValueType type(String what, boolean numeric) {
      int code = next(what);
      if (code < 0 || code > (numeric ? 3 : 4)) {
        throw bad(what + ": type code " + code + " at word " + (pos - 1) + " is not a "
            + (numeric ? "numeric " : "") + "type");
      }
      return ValueType.ofCode(code);
    }
  }

  static ProgramException bad(String message) {
    return new ProgramException(null, null, "bytecode: " + message);
  }

  static CompiledProgram decode(int[] image) {
    if (image == null || image.length < 2) {
      throw bad("an image needs at least a magic word and a version");
    }
    Reader r = new Reader(image);
    if (r.next("the magic word") != CompiledProgram.MAGIC) {
      throw bad("word 0 is not the magic word 0x" + Integer.toHexString(CompiledProgram.MAGIC)
          + " (GSTP): not a gstm program image");
    }
    int version = r.next("the version");
    if (version != Opcodes.VERSION) {
      throw bad("version " + version + " is not supported (this gstm reads version "
          + Opcodes.VERSION + ")");
    }
    int registers = r.count("registers", CompiledProgram.MAX_REGISTERS);
    if (registers < 1) {
      throw bad("a program needs at least 1 register");
    }
    int tag = r.next("the tag");
    long reads = r.wide("the analysis");
    long lockEntries = r.wide("the analysis");
    long rowLockEntries = r.wide("the analysis");
    long writeEntries = r.wide("the analysis");
    long sums = r.wide("the analysis");
    long steps = r.wide("the analysis");
    if (steps < 1 || steps > CompiledProgram.MAX_STEPS) {
      throw bad("step bound " + steps + " is out of range 1.." + CompiledProgram.MAX_STEPS);
    }
    int flags = r.next("the flags");
    String name = r.string("the name");
    int np = r.count("parameters", CompiledProgram.MAX_COLUMNS);
    List<Program.Param> params = new ArrayList<>();
    int columns = 0;
    for (int i = 0; i < np; i++) {
      String pn = r.string("a parameter name");
      ValueType t = r.type("parameter '" + pn + "'", true);
      int length = r.count("the length of parameter '" + pn + "'", CompiledProgram.MAX_COLUMNS);
      params.add(new Program.Param(pn, t, length, null));
      columns += Math.max(1, length);
    }
    if (columns > CompiledProgram.MAX_COLUMNS) {
      throw bad(columns + " parameter columns exceed " + CompiledProgram.MAX_COLUMNS);
    }
    int nr = r.count("regions", io.gstm.core.store.StoreLayout.MAX_REGIONS);
    List<Program.RegionDecl> regions = new ArrayList<>();
    for (int i = 0; i < nr; i++) {
      String rn = r.string("a region name");
      ValueType t = r.type("region '" + rn + "'", true);
      regions.add(new Program.RegionDecl(rn, t, r.next("a region flag") != 0, null));
    }
    int no = r.count("outputs", CompiledProgram.MAX_OUTPUTS);
    List<Program.Output> outputs = new ArrayList<>();
    int[] outRegs = new int[no];
    for (int i = 0; i < no; i++) {
      String on = r.string("an output name");
      ValueType t = r.type("output '" + on + "'", true);
      outputs.add(new Program.Output(on, t, null));
      outRegs[i] = r.count("the register of output '" + on + "'", registers - 1);
    }
    int nk = r.count("constants", CompiledProgram.MAX_CONSTANTS);
    long[] constants = new long[nk];
    for (int i = 0; i < nk; i++) {
      constants[i] = r.wide("a constant");
    }
    int nc = r.count("code words", CompiledProgram.MAX_CODE);
    if (nc < 1) {
      throw bad("a program needs at least 1 instruction");
    }
    int[] code = new int[nc];
    for (int i = 0; i < nc; i++) {
      code[i] = r.next("the code");
    }
    if (r.pos != image.length) {
      throw bad((image.length - r.pos) + " words follow the code");
    }
    verify(code, registers, nk, columns, params, nr);
    checkAnalysis(code, reads, lockEntries, rowLockEntries, writeEntries, sums, flags);
    Analysis analysis = new Analysis(reads, new Analysis.Locks(lockEntries, rowLockEntries),
        writeEntries, sums, steps, (flags & 1) != 0, (flags & 2) != 0);
    return new CompiledProgram(name, params, regions, outputs, tag,
        new CompiledProgram.Body(code, constants, registers, outRegs), analysis);
  }

  /**
   * The engines size sets and choose paths from the stored analysis, so it must not promise
   * less than the code can do: a read-only flag on code that writes, no retry flag on code that
   * retries, or zero bounds for reads, writes or sums the code contains are refused. (Bounds
   * under-stated by a hand-made image still cannot corrupt anything: both engines end a
   * transaction that outgrows its sets TOO_LARGE.)
   */
  private static void checkAnalysis(int[] code, long reads, long lockEntries,
      long rowLockEntries, long writeEntries, long sums, int flags) {
    if ((flags & ~3) != 0) {
      throw bad("unknown analysis flags 0x" + Integer.toHexString(flags));
    }
    boolean writes = false;
    boolean retries = false;
    boolean regionReads = false;
    boolean lockedReads = false;
    boolean sumOps = false;
    for (int pc = 0; pc < code.length; pc += Opcodes.length(code[pc] & 0xff)) {
      int op = code[pc] & 0xff;
      writes |= op == Opcodes.WR;
      retries |= op == Opcodes.RETRY;
      regionReads |= op == Opcodes.RD || op == Opcodes.RDS;
      lockedReads |= op == Opcodes.RD;
      sumOps |= op == Opcodes.SUM;
    }
    if (writes && (flags & 1) != 0) {
      throw bad("the analysis says read-only but the code writes a region");
    }
    if (retries && (flags & 2) == 0) {
      throw bad("the analysis says the program never retries but the code can");
    }
    if (writes && (writeEntries < 1 || lockEntries < 1 || rowLockEntries < 1)) {
      throw bad("the analysis bounds no writes but the code writes a region");
    }
    if (regionReads && reads < 1 || lockedReads && (lockEntries < 1 || rowLockEntries < 1)) {
      throw bad("the analysis bounds no reads but the code reads a region");
    }
    if (sumOps && sums < 1) {
      throw bad("the analysis bounds no sums but the code sums a region");
    }
    if (reads < 0 || lockEntries < 0 || writeEntries < 0 || sums < 0) {
      throw bad("the analysis holds a negative bound");
    }
    if (rowLockEntries < 0 || rowLockEntries > lockEntries) {
      throw bad("the analysis bounds " + rowLockEntries + " lock entries under shared locks, "
          + "outside 0.." + lockEntries + " (its bound without)");
    }
  }

  /**
   * Checks every instruction: a known opcode, registers below {@code registers}, constants,
   * column slots, parameters and regions in range, jump targets on instruction starts, and the
   * last instruction one that does not fall off the end (RET, RETRY, ABORT or JMP).
   */
  static void verify(int[] code, int registers, int constants, int columns,
      List<Program.Param> params, int regions) {
    boolean[] start = new boolean[code.length + 1];
    int pc = 0;
    int last = -1;
    while (pc < code.length) {
      start[pc] = true;
      int w = code[pc];
      int op = w & 0xff;
      int a = w >>> 8 & 0xff;
      int b = w >>> 16 & 0xff;
      int c = w >>> 24 & 0xff;
      int wide = b | c << 8;
      String at = "instruction at word " + pc;
      switch (Opcodes.format(op)) {
        case INVALID -> throw bad(at + ": unknown opcode " + op);
        case NONE -> unused(at, a, b, c);
        case A -> {
          reg(a, registers, at);
          unused(at, b, c);
        }
        case JUMP -> { } // the target is checked below
        case BRANCH -> reg(a, registers, at); // the target is checked below
        case AB -> {
          reg(a, registers, at);
          reg(b, registers, at);
          unused(at, c);
        }
        case ABC -> {
          reg(a, registers, at);
          reg(b, registers, at);
          reg(c, registers, at);
        }
        case CONST -> {
          reg(a, registers, at);
          if (wide >= constants) {
            throw bad(at + ": constant " + wide + " of " + constants);
          }
        }
        case SLOT -> {
          reg(a, registers, at);
          if (wide >= columns) {
            throw bad(at + ": column slot " + wide + " of " + columns);
          }
        }
        case ELEMENT -> {
          reg(a, registers, at);
          if (b >= params.size() || !params.get(b).isArray()) {
            throw bad(at + ": parameter " + b + " is not an array parameter");
          }
          reg(c, registers, at);
        }
        case REGION_READ, REGION_LEN -> {
          reg(a, registers, at);
          region(b, regions, at);
          if (Opcodes.format(op) == Opcodes.Format.REGION_READ) {
            reg(c, registers, at);
          } else {
            unused(at, c);
          }
        }
        case REGION_WRITE -> {
          region(a, regions, at);
          reg(b, registers, at);
          reg(c, registers, at);
        }
        case REGION_SUM -> {
          reg(a, registers, at);
          region(b, regions, at);
          reg(c, registers, at);
          if (pc + 1 >= code.length) {
            throw bad(at + ": SUM needs a second word");
          }
          reg(code[pc + 1], registers, at);
        }
        case LOOP -> {
          reg(a, registers, at);
          reg(b, registers, at);
          unused(at, c);
          if (pc + 1 >= code.length || code[pc + 1] < 0) {
            throw bad(at + ": LOOP needs a non-negative bound in its second word");
          }
        }
        case CONVERT -> {
          reg(a, registers, at);
          reg(b, registers, at);
          if ((c >> 4) > 4 || (c & 15) > 3) {
            throw bad(at + ": conversion " + (c >> 4) + " -> " + (c & 15) + " is not one");
          }
        }
        default -> throw bad(at + ": unknown format");
      }
      last = pc;
      pc += Opcodes.length(op);
    }
    if (pc != code.length) {
      throw bad("the last instruction is cut off");
    }
    int lastOp = code[last] & 0xff;
    if (lastOp != Opcodes.RET && lastOp != Opcodes.RETRY && lastOp != Opcodes.ABORT
        && lastOp != Opcodes.JMP) {
      throw bad("the code may run past its end (the last instruction is opcode " + lastOp + ")");
    }
    for (pc = 0; pc < code.length; pc += Opcodes.length(code[pc] & 0xff)) {
      int w = code[pc];
      int op = w & 0xff;
      int target = op == Opcodes.JMP ? w >>> 8 : op == Opcodes.JZ || op == Opcodes.JNZ
          ? (w >>> 16 & 0xff) | (w >>> 24 & 0xff) << 8 : -1;
      if (target >= 0 && (target >= code.length || !start[target])) {
        throw bad("instruction at word " + pc + ": jump target " + target
            + " is not an instruction of this program");
      }
    }
  }

  /**
   * Operand fields an instruction does not use must be 0: the GPU interpreter decodes operands
   * before it knows the opcode's format, so a stray field must not name a register past the file.
   */
  private static void unused(String at, int... fields) {
    for (int f : fields) {
      if (f != 0) {
        throw bad(at + ": an unused operand field holds " + f + " (must be 0)");
      }
    }
  }

  private static void reg(int r, int registers, String at) {
    if (r < 0 || r >= registers) {
      throw bad(at + ": register " + r + " of " + registers);
    }
  }

  private static void region(int r, int regions, String at) {
    if (r < 0 || r >= regions) {
      throw bad(at + ": region " + r + " of " + regions);
    }
  }

  /** One instruction per line. */
  static String disassemble(int[] code, long[] constants) {
    StringBuilder s = new StringBuilder();
    for (int pc = 0; pc < code.length; pc += Opcodes.length(code[pc] & 0xff)) {
      int w = code[pc];
      int op = w & 0xff;
      s.append(String.format("%4d  %-6s %3d %3d %3d", pc, name(op), w >>> 8 & 0xff,
          w >>> 16 & 0xff, w >>> 24 & 0xff));
      if (op == Opcodes.LDK) {
        int k = (w >>> 16 & 0xff) | (w >>> 24 & 0xff) << 8;
        s.append("   ; ").append(k < constants.length ? "0x" + Long.toHexString(constants[k])
            : "?");
      }
      if (Opcodes.length(op) == 2 && pc + 1 < code.length) {
        s.append("   +").append(code[pc + 1]);
      }
      s.append('\n');
    }
    return s.toString();
  }

  private static final String[] TYPED = {"i32", "i64", "f32", "f64"};

  static String name(int op) {
    return switch (op) {
      case Opcodes.RET -> "RET";
      case Opcodes.RETRY -> "RETRY";
      case Opcodes.ABORT -> "ABORT";
      case Opcodes.JMP -> "JMP";
      case Opcodes.JZ -> "JZ";
      case Opcodes.JNZ -> "JNZ";
      case Opcodes.MOV -> "MOV";
      case Opcodes.LDK -> "LDK";
      case Opcodes.LDP -> "LDP";
      case Opcodes.LDPA -> "LDPA";
      case Opcodes.RD -> "RD";
      case Opcodes.RDS -> "RDS";
      case Opcodes.WR -> "WR";
      case Opcodes.SUM -> "SUM";
      case Opcodes.LEN -> "LEN";
      case Opcodes.LOOP -> "LOOP";
      case Opcodes.NOT -> "NOT";
      case Opcodes.CVT -> "CVT";
      default -> typedName(op);
    };
  }

  private static String typedName(int op) {
    String[] four = {"ADD", "SUB", "MUL", "DIV", "REM", "MIN", "MAX", "NEG", "ABS", "EQ", "NE",
        "LT", "LE"};
    if (op >= Opcodes.ADD && op < Opcodes.AND) {
      return four[(op - Opcodes.ADD) / 4] + "." + TYPED[(op - Opcodes.ADD) % 4];
    }
    String[] two = {"AND", "OR", "XOR", "SHL", "SHR", "USHR", "BNOT"};
    if (op >= Opcodes.AND && op < Opcodes.SQRT) {
      return two[(op - Opcodes.AND) / 2] + "." + TYPED[(op - Opcodes.AND) % 2];
    }
    if (op == Opcodes.SQRT || op == Opcodes.SQRT + 1) {
      return "SQRT." + TYPED[2 + op - Opcodes.SQRT];
    }
    String[] wrapping = {"WADD", "WSUB", "WMUL"};
    if (op >= Opcodes.WADD && op < Opcodes.COUNT) {
      return wrapping[(op - Opcodes.WADD) / 2] + "." + TYPED[(op - Opcodes.WADD) % 2];
    }
    return "?" + op;
  }
}
