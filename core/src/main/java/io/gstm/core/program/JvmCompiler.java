package io.gstm.core.program;

import io.gstm.core.workload.TxContext;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.WeakHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compiles a program's bytecode to a JVM class (a hidden class, one per program), so that the
 * JVM engine runs it at the JIT's speed instead of dispatching instruction by instruction.
 * Registers become long locals, jumps become JVM branches at the same places, and every
 * instruction becomes a call to a tiny {@link CompiledOps} method that the JIT inlines: the
 * meaning is the interpreter's, by construction. Every branch target (and every instruction
 * after an unconditional transfer) gets the same full stack-map frame, which all registers,
 * set to 0 on entry, satisfy. A taken backward jump counts against the step bound.
 *
 * <p>A program whose method would outgrow the JVM's limits is left to the {@link Interpreter};
 * so is every program when the system property {@code gstm.programs.jvmCompile} is false.
 */
final class JvmCompiler {
  private static final Logger LOG = LoggerFactory.getLogger(JvmCompiler.class);
  private static final boolean ENABLED =
      Boolean.parseBoolean(System.getProperty("gstm.programs.jvmCompile", "true"));
  /** Compiled bodies by program; a program no longer used is collected with its class. */
  private static final Map<CompiledProgram, CompiledBody> CACHE =
      Collections.synchronizedMap(new WeakHashMap<>());
  private static final CompiledBody NOT_COMPILED = (e, tx, t) -> 0;

  private static final String SELF = "io/gstm/core/program/CompiledProgramBody";
  private static final String OPS = "io/gstm/core/program/CompiledOps";
  private static final String ENV = "io/gstm/core/program/CompiledOps$Env";
  private static final String TX = "io/gstm/core/workload/TxContext";
  /** The parameters the body and most calls into {@link CompiledOps} start with: env, tx. */
  private static final String ENV_TX = "(L" + ENV + ";L" + TX + ";";
  private static final String RUN_DESC = ENV_TX + "I)J";
  /** Locals: this, env, tx, t, budget, then register r at 5 + 2r. */
  private static final int ENV_SLOT = 1;
  private static final int TX_SLOT = 2;
  private static final int T_SLOT = 3;
  private static final int BUDGET_SLOT = 4;
  private static final int FIRST_REGISTER = 5;

  private JvmCompiler() {}

  /** A program's compiled body. */
  interface CompiledBody {
    long run(CompiledOps.Env env, TxContext tx, int t);
  }

  /** The compiled body of {@code p}, or null when it is interpreted. */
  static CompiledBody of(CompiledProgram p) {
    if (!ENABLED) {
      return null;
    }
    CompiledBody body = CACHE.computeIfAbsent(p, JvmCompiler::compileOrNot);
    return body == NOT_COMPILED ? null : body;
  }

  private static CompiledBody compileOrNot(CompiledProgram p) {
    try {
      byte[] bytes = classBytes(p);
      if (bytes == null) {
        return NOT_COMPILED;
      }
      MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClass(bytes, true);
      return (CompiledBody) hidden.findConstructor(hidden.lookupClass(),
          MethodType.methodType(void.class)).invoke();
    } catch (Throwable e) {
      // Never fatal: the interpreter has the same meaning.
      LOG.warn("program '{}' is interpreted: compiling it failed: {}", p.name(), e.toString());
      return NOT_COMPILED;
    }
  }

  // ---- the class file ---------------------------------------------------------------------

  /** The class bytes, or null when the method would not fit the JVM's 16-bit branches. */
  static byte[] classBytes(CompiledProgram p) throws IOException {
    Pool pool = new Pool();
    int thisClass = pool.clazz(SELF);
    int superClass = pool.clazz("java/lang/Object");
    int iface = pool.clazz("io/gstm/core/program/JvmCompiler$CompiledBody");
    byte[] init = initCode(pool);
    Method run = runCode(p, pool, thisClass);
    if (run == null) {
      return null;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    int codeName = pool.utf8("Code");
    int frameName = pool.utf8("StackMapTable");
    int initName = pool.utf8("<init>");
    int initDesc = pool.utf8("()V");
    int runName = pool.utf8("run");
    int runDesc = pool.utf8(RUN_DESC);
    out.writeInt(0xCAFEBABE);
    out.writeShort(0);
    out.writeShort(61); // Java 17
    pool.write(out);
    out.writeShort(0x0031); // public final super
    out.writeShort(thisClass);
    out.writeShort(superClass);
    out.writeShort(1);
    out.writeShort(iface);
    out.writeShort(0); // fields
    out.writeShort(2); // methods
    // <init>
    out.writeShort(0x0001);
    out.writeShort(initName);
    out.writeShort(initDesc);
    out.writeShort(1);
    out.writeShort(codeName);
    out.writeInt(12 + init.length);
    out.writeShort(1); // max stack
    out.writeShort(1); // max locals
    out.writeInt(init.length);
    out.write(init);
    out.writeShort(0); // exception table
    out.writeShort(0); // attributes
    // run
    out.writeShort(0x0001);
    out.writeShort(runName);
    out.writeShort(runDesc);
    out.writeShort(1);
    out.writeShort(codeName);
    byte[] frames = run.frames;
    out.writeInt(12 + run.code.length + 6 + frames.length);
    out.writeShort(8); // max stack: env, tx, int, long, long
    out.writeShort(FIRST_REGISTER + 2 * p.registers());
    out.writeInt(run.code.length);
    out.write(run.code);
    out.writeShort(0); // exception table
    out.writeShort(1); // attributes: StackMapTable
    out.writeShort(frameName);
    out.writeInt(frames.length);
    out.write(frames);
    out.writeShort(0); // class attributes
    out.flush();
    return bytes.toByteArray();
  }

  private static byte[] initCode(Pool pool) {
    Code c = new Code();
    c.op(0x2a); // aload_0
    c.op(0xb7); // invokespecial Object.<init>
    c.u2(pool.method("java/lang/Object", "<init>", "()V", false));
    c.op(0xb1); // return
    return c.bytes();
  }

  private record Method(byte[] code, byte[] frames) {}

  /** A JVM instruction stream with branch fix-ups. */
  private static final class Code {
    final ByteArrayOutputStream buf = new ByteArrayOutputStream();
    /** Positions of 16-bit branch offsets to patch, their instruction start, their program pc. */
    final List<int[]> fixups = new ArrayList<>();

    int at() {
      return buf.size();
    }

    void op(int b) {
      buf.write(b);
    }

    void u2(int v) {
      buf.write(v >>> 8);
      buf.write(v);
    }

    /** A branch opcode to program instruction {@code target}, patched later. */
    void branch(int opcode, int target) {
      int start = at();
      op(opcode);
      fixups.add(new int[] {at(), start, target});
      u2(0);
    }

    void iconst(Pool pool, int v) {
      if (v >= -1 && v <= 5) {
        op(0x03 + v);
      } else if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) {
        op(0x10);
        op(v);
      } else if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
        op(0x11);
        u2(v);
      } else {
        op(0x13); // ldc_w
        u2(pool.integer(v));
      }
    }

    void lload(int reg) {
      op(0x16);
      op(FIRST_REGISTER + 2 * reg);
    }

    void lstore(int reg) {
      op(0x37);
      op(FIRST_REGISTER + 2 * reg);
    }

    void aload(int slot) {
      op(0x2a + slot); // aload_0..3
    }

    void iload(int slot) {
      op(0x15);
      op(slot);
    }

    void call(Pool pool, String name, String desc) {
      op(0xb8);
      u2(pool.method(OPS, name, desc, false));
    }

    byte[] bytes() {
      return buf.toByteArray();
    }
  }

  private static Method runCode(CompiledProgram p, Pool pool, int thisClass) throws IOException {
    int[] code = p.code();
    long[] k = p.constants();
    Code c = new Code();
    // Prologue: the step budget, and every register 0 (so one frame fits every target).
    c.iconst(pool, (int) Math.min(Integer.MAX_VALUE, p.analysis().steps()));
    c.op(0x36);
    c.op(BUDGET_SLOT);
    for (int r = 0; r < p.registers(); r++) {
      c.op(0x09); // lconst_0
      c.lstore(r);
    }
    int[] start = new int[code.length + 1];
    TreeSet<Integer> frameAt = new TreeSet<>();
    TreeSet<Integer> framePcs = new TreeSet<>();
    for (int pc = 0; pc < code.length; pc += Opcodes.length(code[pc] & 0xff)) {
      int w = code[pc];
      int op = w & 0xff;
      int target = op == Opcodes.JMP ? w >>> 8
          : op == Opcodes.JZ || op == Opcodes.JNZ ? (w >>> 16 & 0xff) | (w >>> 24 & 0xff) << 8
          : -1;
      if (target >= 0) {
        framePcs.add(target);
      }
    }
    boolean afterTransfer = false;
    for (int pc = 0; pc < code.length; pc += Opcodes.length(code[pc] & 0xff)) {
      start[pc] = c.at();
      if (afterTransfer || framePcs.contains(pc)) {
        frameAt.add(c.at());
      }
      int w = code[pc];
      int op = w & 0xff;
      int a = w >>> 8 & 0xff;
      int b = w >>> 16 & 0xff;
      int cc = w >>> 24 & 0xff;
      afterTransfer = false;
      switch (op) {
        case Opcodes.RET -> {
          int[] outs = p.outputRegisters();
          for (int o = 0; o < outs.length; o++) {
            c.aload(ENV_SLOT);
            c.iload(T_SLOT);
            c.iconst(pool, o);
            c.lload(outs[o]);
            c.call(pool, "output", "(L" + ENV + ";IIJ)V");
          }
          if (outs.length == 0) {
            c.op(0x09);
          } else {
            c.lload(outs[0]);
          }
          c.op(0xad); // lreturn
          afterTransfer = true;
        }
        case Opcodes.RETRY -> {
          c.aload(TX_SLOT);
          c.call(pool, "retry", "(L" + TX + ";)V");
          c.op(0x09);
          c.op(0xad);
          afterTransfer = true;
        }
        case Opcodes.ABORT -> {
          c.aload(ENV_SLOT);
          c.aload(TX_SLOT);
          c.iload(T_SLOT);
          c.lload(a);
          c.call(pool, "abort", ENV_TX + "IJ)V");
          c.op(0x09);
          c.op(0xad);
          afterTransfer = true;
        }
        case Opcodes.JMP -> {
          int target = w >>> 8;
          if (target <= pc) {
            budget(c, pool, target);
          } else {
            c.branch(0xa7, target); // goto
          }
          afterTransfer = true;
        }
        case Opcodes.JZ, Opcodes.JNZ -> {
          int target = b | cc << 8;
          c.lload(a);
          c.op(0x09);
          c.op(0x94); // lcmp
          if (target <= pc) {
            // Not taken: on to the next instruction; taken: a step against the budget.
            c.branch(op == Opcodes.JZ ? 0x9a : 0x99, pc + 1);
            budget(c, pool, target);
            framePcs.add(pc + 1);
          } else {
            c.branch(op == Opcodes.JZ ? 0x99 : 0x9a, target); // ifeq / ifne
          }
        }
        case Opcodes.MOV -> {
          c.lload(b);
          c.lstore(a);
        }
        case Opcodes.LDK -> {
          long v = k[b | cc << 8];
          if (v == 0 || v == 1) {
            c.op(0x09 + (int) v);
          } else {
            c.op(0x14); // ldc2_w
            c.u2(pool.longConstant(v));
          }
          c.lstore(a);
        }
        case Opcodes.LDP -> {
          c.aload(ENV_SLOT);
          c.iconst(pool, b | cc << 8);
          c.iload(T_SLOT);
          c.call(pool, "ldp", "(L" + ENV + ";II)J");
          c.lstore(a);
        }
        case Opcodes.LDPA -> {
          envTxAt(c, pool, b, cc);
          c.iload(T_SLOT);
          c.call(pool, "ldpa", ENV_TX + "IJI)J");
          c.lstore(a);
        }
        case Opcodes.RD, Opcodes.RDS -> {
          envTxAt(c, pool, b, cc);
          c.call(pool, op == Opcodes.RD ? "rd" : "rds", ENV_TX + "IJ)J");
          c.lstore(a);
        }
        case Opcodes.WR -> {
          envTxAt(c, pool, a, b);
          c.lload(cc);
          c.call(pool, "wr", ENV_TX + "IJJ)V");
        }
        case Opcodes.SUM -> {
          envTxAt(c, pool, b, cc);
          c.lload(code[pc + 1]);
          c.call(pool, "sum", ENV_TX + "IJJ)J");
          c.lstore(a);
        }
        case Opcodes.LEN -> {
          c.aload(ENV_SLOT);
          c.iconst(pool, b);
          c.call(pool, "len", "(L" + ENV + ";I)J");
          c.lstore(a);
        }
        case Opcodes.LOOP -> {
          c.aload(TX_SLOT);
          c.lload(a);
          c.lload(b);
          c.iconst(pool, code[pc + 1]);
          c.call(pool, "loop", "(L" + TX + ";JJI)V");
        }
        case Opcodes.NOT -> {
          c.lload(b);
          c.call(pool, "not", "(J)J");
          c.lstore(a);
        }
        case Opcodes.CVT -> {
          c.lload(b);
          c.iconst(pool, cc);
          c.call(pool, "convert", "(JI)J");
          c.lstore(a);
        }
        default -> {
          if (Opcodes.isUnary(op)) {
            c.aload(TX_SLOT);
            c.iconst(pool, op);
            c.lload(b);
            c.call(pool, "unary", "(L" + TX + ";IJ)J");
          } else if (CompiledOps.fastBinary(op) != null) {
            c.aload(TX_SLOT);
            c.lload(b);
            c.lload(cc);
            c.call(pool, CompiledOps.fastBinary(op), "(L" + TX + ";JJ)J");
          } else {
            c.aload(TX_SLOT);
            c.iconst(pool, op);
            c.lload(b);
            c.lload(cc);
            c.call(pool, "binary", "(L" + TX + ";IJJ)J");
          }
          c.lstore(a);
        }
      }
    }
    start[code.length] = c.at();
    // Frames at the program targets added while compiling (the fall-throughs of backward
    // conditional jumps).
    for (int pc : framePcs) {
      if (pc < code.length) {
        frameAt.add(start[pc]);
      }
    }
    byte[] bytes = c.bytes();
    if (bytes.length > Short.MAX_VALUE) {
      return null; // 16-bit branch offsets: leave it to the interpreter
    }
    for (int[] f : c.fixups) {
      int offset = start[f[2]] - f[1];
      bytes[f[0]] = (byte) (offset >>> 8);
      bytes[f[0] + 1] = (byte) offset;
    }
    return new Method(bytes, frames(frameAt, pool, thisClass, p.registers()));
  }

  /**
   * Pushes the arguments every region operation starts with: env, tx, {@code where} (a region or
   * an array parameter, as an int constant) and the index in register {@code index}.
   */
  private static void envTxAt(Code c, Pool pool, int where, int index) {
    c.aload(ENV_SLOT);
    c.aload(TX_SLOT);
    c.iconst(pool, where);
    c.lload(index);
  }

  /**
   * A taken backward jump: one step of the budget, then the jump; past the budget the attempt
   * ends LOOP_LIMIT.
   */
  private static void budget(Code c, Pool pool, int target) {
    c.op(0x84); // iinc budget, -1
    c.op(BUDGET_SLOT);
    c.op(0xff);
    c.iload(BUDGET_SLOT);
    c.branch(0x9c, target); // ifge
    c.aload(TX_SLOT);
    c.call(pool, "limit", "(L" + TX + ";)V");
    c.op(0x09);
    c.op(0xad);
  }

  /** The StackMapTable: the same full frame at every offset in {@code at}. */
  private static byte[] frames(TreeSet<Integer> at, Pool pool, int thisClass, int registers)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeShort(at.size());
    int env = pool.clazz(ENV);
    int tx = pool.clazz(TX);
    int last = -1;
    for (int offset : at) {
      out.writeByte(255); // full_frame
      out.writeShort(last < 0 ? offset : offset - last - 1);
      last = offset;
      out.writeShort(5 + registers);
      out.writeByte(7);
      out.writeShort(thisClass);
      out.writeByte(7);
      out.writeShort(env);
      out.writeByte(7);
      out.writeShort(tx);
      out.writeByte(1); // int t
      out.writeByte(1); // int budget
      for (int r = 0; r < registers; r++) {
        out.writeByte(4); // long
      }
      out.writeShort(0); // empty stack
    }
    out.flush();
    return bytes.toByteArray();
  }

  /** A constant pool with de-duplicated entries. */
  private static final class Pool {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final DataOutputStream out = new DataOutputStream(bytes);
    private final Map<String, Integer> index = new HashMap<>();
    private int next = 1;

    private int entry(String key, int slots, IoWriter writer) {
      Integer i = index.get(key);
      if (i != null) {
        return i;
      }
      int at = next;
      try {
        writer.write(out);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      next += slots;
      index.put(key, at);
      return at;
    }

    int utf8(String s) {
      return entry("U" + s, 1, o -> {
        o.writeByte(1);
        o.writeUTF(s);
      });
    }

    int clazz(String name) {
      int n = utf8(name);
      return entry("C" + name, 1, o -> {
        o.writeByte(7);
        o.writeShort(n);
      });
    }

    int method(String owner, String name, String desc, boolean iface) {
      int c = clazz(owner);
      int n = utf8(name);
      int d = utf8(desc);
      int nat = entry("N" + name + desc, 1, o -> {
        o.writeByte(12);
        o.writeShort(n);
        o.writeShort(d);
      });
      return entry("M" + owner + "." + name + desc, 1, o -> {
        o.writeByte(iface ? 11 : 10);
        o.writeShort(c);
        o.writeShort(nat);
      });
    }

    int integer(int v) {
      return entry("I" + v, 1, o -> {
        o.writeByte(3);
        o.writeInt(v);
      });
    }

    int longConstant(long v) {
      return entry("J" + v, 2, o -> {
        o.writeByte(5);
        o.writeLong(v);
      });
    }

    void write(DataOutputStream to) throws IOException {
      out.flush();
      to.writeShort(next);
      to.write(bytes.toByteArray());
    }

    private interface IoWriter {
      void write(DataOutputStream out) throws IOException;
    }
  }
}
