package io.gstm.core.program;

import static org.objectweb.asm.Opcodes.ACC_FINAL;
import static org.objectweb.asm.Opcodes.ACC_PUBLIC;
import static org.objectweb.asm.Opcodes.ACC_SUPER;
import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.BIPUSH;
import static org.objectweb.asm.Opcodes.GOTO;
import static org.objectweb.asm.Opcodes.ICONST_0;
import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IFGE;
import static org.objectweb.asm.Opcodes.IFNE;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.INVOKESPECIAL;
import static org.objectweb.asm.Opcodes.INVOKESTATIC;
import static org.objectweb.asm.Opcodes.ISTORE;
import static org.objectweb.asm.Opcodes.LCMP;
import static org.objectweb.asm.Opcodes.LCONST_0;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LRETURN;
import static org.objectweb.asm.Opcodes.LSTORE;
import static org.objectweb.asm.Opcodes.RETURN;
import static org.objectweb.asm.Opcodes.SIPUSH;
import static org.objectweb.asm.Opcodes.V17;

import io.gstm.core.workload.TxContext;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodTooLargeException;
import org.objectweb.asm.MethodVisitor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compiles a program's bytecode to a JVM class (a hidden class, one per program), so that the
 * JVM engine runs it at the JIT's speed instead of dispatching instruction by instruction.
 * Registers become long locals, jumps become JVM branches at the same places, and every
 * instruction becomes a call to a tiny {@link CompiledOps} method that the JIT inlines: the
 * meaning is the interpreter's, by construction. The class is written with ASM, which computes
 * its stack-map frames: all registers are set to 0 on entry, so each local has one type
 * throughout. A taken backward jump counts against the step bound.
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

  // ---- the class file (ASM) -----------------------------------------------------------------

  /** The class bytes, or null when the method would outgrow the JVM's 64 KB of code. */
  static byte[] classBytes(CompiledProgram p) {
    // Frames computed by ASM: every local has one type throughout (registers are longs set to 0
    // on entry), so no two reference types ever merge and no class needs loading.
    ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
      @Override
      protected String getCommonSuperClass(String a, String b) {
        return a.equals(b) ? a : "java/lang/Object";
      }
    };
    cw.visit(V17, ACC_PUBLIC | ACC_FINAL | ACC_SUPER, SELF, null, "java/lang/Object",
        new String[] {"io/gstm/core/program/JvmCompiler$CompiledBody"});
    MethodVisitor init = cw.visitMethod(ACC_PUBLIC, "<init>", "()V", null, null);
    init.visitCode();
    init.visitVarInsn(ALOAD, 0);
    init.visitMethodInsn(INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
    init.visitInsn(RETURN);
    init.visitMaxs(0, 0);
    init.visitEnd();
    MethodVisitor run = cw.visitMethod(ACC_PUBLIC, "run", RUN_DESC, null, null);
    run.visitCode();
    runCode(p, new Code(run, p.code().length));
    run.visitMaxs(0, 0);
    run.visitEnd();
    cw.visitEnd();
    try {
      return cw.toByteArray();
    } catch (MethodTooLargeException e) {
      return null; // leave it to the interpreter
    }
  }

  /** The run method being written: a label per program instruction, and small helpers. */
  private static final class Code {
    final MethodVisitor mv;
    final Label[] at;

    Code(MethodVisitor mv, int instructions) {
      this.mv = mv;
      at = new Label[instructions + 1];
      for (int i = 0; i < at.length; i++) {
        at[i] = new Label();
      }
    }

    void iconst(int v) {
      if (v >= -1 && v <= 5) {
        mv.visitInsn(ICONST_0 + v);
      } else if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) {
        mv.visitIntInsn(BIPUSH, v);
      } else if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
        mv.visitIntInsn(SIPUSH, v);
      } else {
        mv.visitLdcInsn(v);
      }
    }

    void lconst(long v) {
      if (v == 0 || v == 1) {
        mv.visitInsn(LCONST_0 + (int) v);
      } else {
        mv.visitLdcInsn(v);
      }
    }

    void lload(int reg) {
      mv.visitVarInsn(LLOAD, FIRST_REGISTER + 2 * reg);
    }

    void lstore(int reg) {
      mv.visitVarInsn(LSTORE, FIRST_REGISTER + 2 * reg);
    }

    void aload(int slot) {
      mv.visitVarInsn(ALOAD, slot);
    }

    void iload(int slot) {
      mv.visitVarInsn(ILOAD, slot);
    }

    void call(String name, String desc) {
      mv.visitMethodInsn(INVOKESTATIC, OPS, name, desc, false);
    }

    void returnZero() {
      mv.visitInsn(LCONST_0);
      mv.visitInsn(LRETURN);
    }
  }

  private static void runCode(CompiledProgram p, Code c) {
    int[] code = p.code();
    long[] k = p.constants();
    MethodVisitor mv = c.mv;
    // Prologue: the step budget, and every register 0 (so that every local keeps one type).
    c.iconst((int) Math.min(Integer.MAX_VALUE, p.analysis().steps()));
    mv.visitVarInsn(ISTORE, BUDGET_SLOT);
    for (int r = 0; r < p.registers(); r++) {
      mv.visitInsn(LCONST_0);
      c.lstore(r);
    }
    for (int pc = 0; pc < code.length; pc += Opcodes.length(code[pc] & 0xff)) {
      mv.visitLabel(c.at[pc]);
      int w = code[pc];
      int op = w & 0xff;
      int a = w >>> 8 & 0xff;
      int b = w >>> 16 & 0xff;
      int cc = w >>> 24 & 0xff;
      switch (op) {
        case Opcodes.RET -> {
          int[] outs = p.outputRegisters();
          for (int o = 0; o < outs.length; o++) {
            c.aload(ENV_SLOT);
            c.iload(T_SLOT);
            c.iconst(o);
            c.lload(outs[o]);
            c.call("output", "(L" + ENV + ";IIJ)V");
          }
          if (outs.length == 0) {
            mv.visitInsn(LCONST_0);
          } else {
            c.lload(outs[0]);
          }
          mv.visitInsn(LRETURN);
        }
        case Opcodes.RETRY -> {
          c.aload(TX_SLOT);
          c.call("retry", "(L" + TX + ";)V");
          c.returnZero();
        }
        case Opcodes.ABORT -> {
          c.aload(ENV_SLOT);
          c.aload(TX_SLOT);
          c.iload(T_SLOT);
          c.lload(a);
          c.call("abort", ENV_TX + "IJ)V");
          c.returnZero();
        }
        case Opcodes.JMP -> {
          int target = w >>> 8;
          if (target <= pc) {
            budget(c, target);
          } else {
            mv.visitJumpInsn(GOTO, c.at[target]);
          }
        }
        case Opcodes.JZ, Opcodes.JNZ -> {
          int target = b | cc << 8;
          c.lload(a);
          mv.visitInsn(LCONST_0);
          mv.visitInsn(LCMP);
          if (target <= pc) {
            // Not taken: on to the next instruction; taken: a step against the budget.
            mv.visitJumpInsn(op == Opcodes.JZ ? IFNE : IFEQ, c.at[pc + 1]);
            budget(c, target);
          } else {
            mv.visitJumpInsn(op == Opcodes.JZ ? IFEQ : IFNE, c.at[target]);
          }
        }
        case Opcodes.MOV -> {
          c.lload(b);
          c.lstore(a);
        }
        case Opcodes.LDK -> {
          c.lconst(k[b | cc << 8]);
          c.lstore(a);
        }
        case Opcodes.LDP -> {
          c.aload(ENV_SLOT);
          c.iconst(b | cc << 8);
          c.iload(T_SLOT);
          c.call("ldp", "(L" + ENV + ";II)J");
          c.lstore(a);
        }
        case Opcodes.LDPA -> {
          envTxAt(c, b, cc);
          c.iload(T_SLOT);
          c.call("ldpa", ENV_TX + "IJI)J");
          c.lstore(a);
        }
        case Opcodes.RD, Opcodes.RDS -> {
          envTxAt(c, b, cc);
          c.call(op == Opcodes.RD ? "rd" : "rds", ENV_TX + "IJ)J");
          c.lstore(a);
        }
        case Opcodes.WR -> {
          envTxAt(c, a, b);
          c.lload(cc);
          c.call("wr", ENV_TX + "IJJ)V");
        }
        case Opcodes.SUM -> {
          envTxAt(c, b, cc);
          c.lload(code[pc + 1]);
          c.call("sum", ENV_TX + "IJJ)J");
          c.lstore(a);
        }
        case Opcodes.LEN -> {
          c.aload(ENV_SLOT);
          c.iconst(b);
          c.call("len", "(L" + ENV + ";I)J");
          c.lstore(a);
        }
        case Opcodes.LOOP -> {
          c.aload(TX_SLOT);
          c.lload(a);
          c.lload(b);
          c.iconst(code[pc + 1]);
          c.call("loop", "(L" + TX + ";JJI)V");
        }
        case Opcodes.NOT -> {
          c.lload(b);
          c.call("not", "(J)J");
          c.lstore(a);
        }
        case Opcodes.CVT -> {
          c.lload(b);
          c.iconst(cc);
          c.call("convert", "(JI)J");
          c.lstore(a);
        }
        default -> {
          if (Opcodes.isUnary(op)) {
            c.aload(TX_SLOT);
            c.iconst(op);
            c.lload(b);
            c.call("unary", "(L" + TX + ";IJ)J");
          } else if (CompiledOps.fastBinary(op) != null) {
            c.aload(TX_SLOT);
            c.lload(b);
            c.lload(cc);
            c.call(CompiledOps.fastBinary(op), "(L" + TX + ";JJ)J");
          } else {
            c.aload(TX_SLOT);
            c.iconst(op);
            c.lload(b);
            c.lload(cc);
            c.call("binary", "(L" + TX + ";IJJ)J");
          }
          c.lstore(a);
        }
      }
    }
    // A program ends with a transfer; the label past its end is never a target.
    mv.visitLabel(c.at[code.length]);
  }

  /**
   * Pushes the arguments every region operation starts with: env, tx, {@code where} (a region or
   * an array parameter, as an int constant) and the index in register {@code index}.
   */
  private static void envTxAt(Code c, int where, int index) {
    c.aload(ENV_SLOT);
    c.aload(TX_SLOT);
    c.iconst(where);
    c.lload(index);
  }

  /**
   * A taken backward jump: one step of the budget, then the jump; past the budget the attempt
   * ends LOOP_LIMIT.
   */
  private static void budget(Code c, int target) {
    c.mv.visitIincInsn(BUDGET_SLOT, -1);
    c.iload(BUDGET_SLOT);
    c.mv.visitJumpInsn(IFGE, c.at[target]);
    c.aload(TX_SLOT);
    c.call("limit", "(L" + TX + ";)V");
    c.returnZero();
  }
}
