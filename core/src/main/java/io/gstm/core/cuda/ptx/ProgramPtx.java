package io.gstm.core.cuda.ptx;

import io.gstm.core.cuda.ptx.PtxModule.Function;
import io.gstm.core.program.Opcodes;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Compiles a program image (the words {@code gstm/program.cuh} interprets) to the PTX of a
 * kernel: the body {@code gstm_jit_body_<tx>} that the template ({@code jit/program_jit.cu},
 * compiled with -rdc) declares is written from the bytecode, one instruction after another,
 * with what the interpreter decides at run time (opcodes, registers, constants, regions,
 * jump targets, step bounds) fixed in the code; then {@link PtxInliner} inlines it and every
 * operation it calls. The meaning is the interpreter's: the same checks in the same order, the
 * same outcomes, the arithmetic through the very function the interpreter runs ({@code alu()}).
 * What depends on the data is read at run time: the column offsets (the batch's size) from the
 * image, the regions' lengths (the store's size) from the block's shared view of the store, so
 * that one compiled set serves stores of every size.
 */
public final class ProgramPtx extends PtxWriter {
  /** The largest set capacity the template has kernels for. */
  public static final int MAX_CAPACITY = 16;
  private static final int OUT_OF_RANGE = 6;
  private static final int USER_ABORT = 5;
  private static final int LOOP_LIMIT = 8;
  /** The lowest ordinary owner ({@code priority::kOrdinary}); urgent ones lie below. */
  private static final long ORDINARY = 1L << 29;
  /** Whether bodies lay their sets out at compile time where they can ({@link StaticSets});
   *  off with {@code -Dgstm.jit.fixedSlots=false} (with {@code -Dgstm.jit.cache=off}), to
   *  compare. */
  private static final boolean FIXED_SLOTS =
      Boolean.parseBoolean(System.getProperty("gstm.jit.fixedSlots", "true"));
  /** Whether a body with fixed slots commits at its RETs, its sets' sizes constants; off with
   *  {@code -Dgstm.jit.fixedCommit=false}, to compare. */
  private static final boolean FIXED_COMMIT =
      Boolean.parseBoolean(System.getProperty("gstm.jit.fixedCommit", "true"));
  /** The suffix of a relaxation's look (a ProbeTx), whose reads may be issued early. */
  private static final String LOOK = "p";
  /**
   * A relaxation's edge columns, in the order CudaProgramRelax binds them: {@code src} (int32),
   * {@code dst} (int32), {@code weight} (float64, where the program takes one). The kernel
   * hands a look and a transaction their edge's columns ({@link RelaxationPtx#edgeColumns}):
   * the source from its work item (a vertex's edges), the others loaded once for the look.
   */
  public static final List<String> RELAX_COLUMNS = List.of("src", "dst", "weight");
  /** The column of a relaxation's image that holds each edge's source. */
  public static final int RELAX_SOURCE_COLUMN = 0;
  /** The template's shared copy of each thread's edge's ends ({@code RelaxEnds}, 8 bytes a
   *  thread): a relaxation's transaction loads its weight itself. */
  private static final String EDGES = "gstm_jit_edges";
  private static final int RELAX_ENDS = 2;
  /**
   * Whether a relaxation's ordinary attempt takes what it only reads of its edge's source as an
   * input: a snapshot of the source's words, checked as one before it takes its written locks,
   * not validated again after (StaticSets.Commit). A source changed later queues its edges
   * again, with its new values, as the built-in shortest paths take the source's distance.
   * Off with {@code -Dgstm.jit.sourceInputs=false} (with {@code -Dgstm.jit.cache=off}): every
   * read validated at commit.
   */
  private static final boolean SOURCE_INPUTS =
      Boolean.parseBoolean(System.getProperty("gstm.jit.sourceInputs", "true"));

  private final String sfx;
  /** A relaxation's look: its loads apart ({@link RelaxationPtx#lookLoads}), passed to its body
   *  as param_0. */
  private final boolean look;
  private int earlyCount;
  private final String name;
  private final int txBytes;
  private int labels;

  private ProgramPtx(int[] image, String sfx, int txBytes, boolean look) {
    super(image, look);
    this.sfx = sfx;
    this.look = look;
    this.name = (look ? "gstm_jit_look_" : "gstm_jit_body_") + sfx;
    this.txBytes = txBytes;
    if (look && image[2] != 1) {
      throw new PtxException("ptx: a relaxation's look is compiled for a set of one program, not "
          + image[2]);
    }
  }

  /**
   * Whether a program the batch runs ({@code used}, by type) may retry (a semantic conflict): it
   * then needs run_semantic's postponing; otherwise each transaction retries in place.
   */
  public static boolean retries(int[] image, boolean[] used) {
    int programs = image[2];
    for (int p = 0; p < programs; p++) {
      if (p < used.length && !used[p]) {
        continue;
      }
      int dir = dir(image, p);
      int code = image[dir];
      int len = image[dir + 1];
      for (int pc = 0; pc < len; pc += length(image[code + pc])) {
        if ((image[code + pc] & 0xff) == Opcodes.RETRY) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * How each program of the image lays its sets out with sets of {@code capacity}: {@link
   * StaticSets#describe}'s listing where the fixed slots apply, null where its general code
   * runs alone.
   */
  public static List<String> fixedSlots(int[] image, int capacity) {
    return fixedSlots(image, capacity, false);
  }

  /**
   * {@link #fixedSlots(int[], int)}, as a relaxation's ordinary attempts lay them out when
   * {@code relaxation}: the locks only read at the edge's source are inputs.
   */
  public static List<String> fixedSlots(int[] image, int capacity, boolean relaxation) {
    List<String> out = new ArrayList<>();
    for (int p = 0; p < image[2]; p++) {
      StaticSets fixed = StaticSets.of(image, dir(image, p), capacity,
          relaxation && SOURCE_INPUTS ? RELAX_SOURCE_COLUMN : -1);
      out.add(fixed == null ? null : fixed.describe());
    }
    return out;
  }

  /** The kernel that runs programs with sets of {@code capacity}, two attempt types. */
  public static String kernel(boolean retries, int capacity) {
    return kernel(retries, capacity, false);
  }

  /**
   * The kernel that runs programs with sets of {@code capacity}; {@code oneAttemptType}: its
   * ordinary and urgent attempts one type, the urgency read at run time, so that the program's
   * body is compiled once (about half of ptxas's time for a set), not once for each.
   */
  public static String kernel(boolean retries, int capacity, boolean oneAttemptType) {
    String one = oneAttemptType ? "one_" : "";
    return (retries ? "gstm_jit_prstm_" : "gstm_jit_prstm_in_place_") + one + "s" + capacity;
  }

  /**
   * The kernel of a program relaxation's whole run with sets of {@code capacity} ({@code
   * relax_loop} of the template, one cooperative launch: rounds of each edge looked at, then
   * run in place), its buckets drained without rounds when {@code drain} ({@code relax_drain}).
   */
  public static String relaxKernel(int capacity, boolean drain) {
    return (drain ? "gstm_jit_relax_drain_s" : "gstm_jit_relax_loop_s") + capacity;
  }

  /**
   * The PTX of {@link #kernel(boolean, int)} for this image, every call inlined.
   *
   * @param template the parsed template (jit/program_jit.ptx)
   * @param image the program image; its column offsets are not read
   * @param capacity the set capacity (at most MAX_CAPACITY)
   * @param retries whether the batch's programs may retry ({@link #retries})
   */
  public static String compile(PtxModule template, int[] image, int capacity, boolean retries) {
    return compile(template, image, capacity, kernel(retries, capacity));
  }

  /** As {@link #compile(PtxModule, int[], int, boolean)}, for {@link #kernel(boolean, int, boolean)}. */
  public static String compile(PtxModule template, int[] image, int capacity, boolean retries,
      boolean oneAttemptType) {
    return compile(template, image, capacity, kernel(retries, capacity, oneAttemptType));
  }

  /**
   * The PTX of the template's kernel {@code kernel} (one of {@link #kernel} or {@link
   * #relaxKernel} for {@code capacity}) for this image, every call inlined: the body is written
   * for each transaction type the kernel may run (ordinary and urgent attempts of {@code
   * capacity}; for a relaxation, its attempts and its look).
   */
  public static String compile(PtxModule template, int[] image, int capacity, String kernel) {
    if (capacity > MAX_CAPACITY) {
      throw new PtxException("ptx: sets of " + capacity + " entries are not compiled (at most "
          + MAX_CAPACITY + ")");
    }
    Map<String, Function> functions = new LinkedHashMap<>(template.functions());
    // Ordinary and urgent attempts (o, u), or both as one type (d); a relaxation's, without
    // read pre-locks (r, v), and its look (p).
    boolean relax = kernel.equals(relaxKernel(capacity, false))
        || kernel.equals(relaxKernel(capacity, true));
    boolean oneType = kernel.equals(kernel(true, capacity, true))
        || kernel.equals(kernel(false, capacity, true));
    List<String> suffixes = new ArrayList<>(oneType ? List.of("d" + capacity)
        : List.of("o" + capacity, "u" + capacity));
    if (relax) {
      suffixes.addAll(List.of("r" + capacity, "v" + capacity, "p"));
    }
    for (String sfx : suffixes) {
      int txBytes = template.function("gstm_jit_rd_" + sfx).params().values().iterator().next();
      if (sfx.equals(LOOK)) {
        // The look's loads and its decision, apart (gstm_jit_pre_p, gstm_jit_look_p).
        Function pre = parseFunction(new RelaxationPtx(image, sfx).lookLoads());
        functions.put(pre.name(), pre);
      }
      Function f = parseFunction(new ProgramPtx(image, sfx, txBytes, sfx.equals(LOOK)).body());
      functions.put(f.name(), f);
    }
    PtxModule module = template.withFunctions(functions);
    return PtxInliner.link(module, List.of(kernel));
  }

  private static Function parseFunction(String text) {
    PtxModule m = PtxModule.parse(text);
    return m.functions().values().iterator().next();
  }

  // ---- emission ---------------------------------------------------------------------------

  private String fresh() {
    return "$J" + (labels++);
  }

  private int words() {
    return txBytes / 4;
  }

  private String body() {
    int programs = img[2];
    int columns = img[3];
    int maxRegs = 1;
    int maxRegions = 1;
    for (int p = 0; p < programs; p++) {
      int dir = dir(img, p);
      maxRegs = Math.max(maxRegs, img[dir + 12]);
      maxRegions = Math.max(maxRegions, img[dir + 9]);
    }
    b.append(".func (.param .align 8 .b8 func_retval0[").append(txBytes + 8).append("]) ")
        .append(name).append("(\n\t.param ").append(look ? ".align 8 .b8 " : ".b32 ")
        .append(name).append("_param_0")
        .append(look ? "[" + 8 * RelaxationPtx.LOOK_PRE_WORDS + "]" : "").append(",\n");
    for (int i = 1; i <= 4; i++) {
      b.append("\t.param .b64 ").append(name).append("_param_").append(i).append(",\n");
    }
    for (int i = 5; i <= 7; i++) {
      b.append("\t.param .b32 ").append(name).append("_param_").append(i)
          .append(i == 7 ? "\n" : ",\n");
    }
    b.append(")\n{\n");
    line(".reg .b32 %x<" + words() + ">");
    line(".reg .b64 %g<" + maxRegs + ">");
    line(".reg .b64 %imgp, %colsp, %img, %cols, %outs, %codes, %t64, %res");
    line(".reg .b64 %d<4>");
    line(".reg .b32 %n, %t, %type, %fault, %budget, %active, %owner");
    line(".reg .b32 %w<4>");
    line(".reg .b32 %co<" + Math.max(1, columns) + ">");
    line(".reg .b64 %cv<" + Math.max(1, columns) + ">");
    line(".reg .b32 %rl<" + maxRegions + ">");
    line(".reg .pred %q<2>");
    // The attempt begins here, from its owner (gstm_jit_new): begun by the kernel and passed
    // in, its bytes went through local memory.
    // A look has no owner (it takes no lock).
    line(look ? "mov.b32 %w0, 0" : "ld.param.u32 %w0, [" + name + "_param_0]");
    line("mov.b32 %owner, %w0");
    b.append("{\n");
    line(".param .b32 param0");
    line("st.param.b32 [param0], %w0");
    line(".param .align 8 .b8 retval0[" + txBytes + "]");
    line("call.uni (retval0), gstm_jit_new_" + sfx + ", (param0)");
    for (int i = 0; i < words(); i++) {
      line("ld.param.b32 %x" + i + ", [retval0+" + 4 * i + "]");
    }
    b.append("}\n");
    line("ld.param.u64 %imgp, [" + name + "_param_1]");
    line("ld.param.u64 %colsp, [" + name + "_param_2]");
    line("ld.param.u64 %outs, [" + name + "_param_3]");
    line("ld.param.u64 %codes, [" + name + "_param_4]");
    line("ld.param.u32 %n, [" + name + "_param_5]");
    line("ld.param.u32 %t, [" + name + "_param_6]");
    line("ld.param.u32 %type, [" + name + "_param_7]");
    line("cvta.to.global.u64 %img, %imgp");
    line("cvta.to.global.u64 %cols, %colsp");
    line("cvta.to.global.u64 %outs, %outs");
    line("cvta.to.global.u64 %codes, %codes");
    line("cvt.u64.u32 %t64, %t");
    for (int p = 0; p < programs; p++) {
      line("setp.eq.u32 %q0, %type, " + p);
      line("@%q0 bra $P" + p);
    }
    line("mov.b32 %fault, " + OUT_OF_RANGE);
    line("bra.uni $FAULT");
    for (int p = 0; p < programs; p++) {
      program(p, dir(img, p));
    }
    label("$OOR");
    line("mov.b32 %fault, " + OUT_OF_RANGE);
    line("bra.uni $FAULT");
    label("$LOOPLIMIT");
    line("mov.b32 %fault, " + LOOP_LIMIT);
    label("$FAULT");
    callTx("end", List.of(".b32 %fault"), null);
    label("$EXIT0");
    line("mov.b64 %res, 0");
    label("$EXIT");
    for (int i = 0; i < words(); i++) {
      line("st.param.b32 [func_retval0+" + 4 * i + "], %x" + i);
    }
    line("st.param.b64 [func_retval0+" + txBytes + "], %res");
    line("ret");
    b.append("}\n");
    return b.toString();
  }

  /**
   * A call of the transaction operation {@code op}: the transaction's words in and out, then
   * {@code args} ("type operand"), the value read into {@code value} (null: none) and whether the
   * transaction is still active into %active.
   */
  private void callTx(String op, List<String> args, String value) {
    b.append("{\n");
    line(".param .align 8 .b8 param0[" + txBytes + "]");
    for (int i = 0; i < words(); i++) {
      line("st.param.b32 [param0+" + 4 * i + "], %x" + i);
    }
    List<String> names = new ArrayList<>(List.of("param0"));
    for (int i = 0; i < args.size(); i++) {
      String[] typed = args.get(i).split(" ", 2);
      line(".param " + typed[0] + " param" + (i + 1));
      line("st.param" + typed[0] + " [param" + (i + 1) + "], " + typed[1]);
      names.add("param" + (i + 1));
    }
    boolean hasValue = op.startsWith("rd") || op.equals("sum");
    line(".param .align 8 .b8 retval0[" + (txBytes + (hasValue ? 16 : 8)) + "]");
    line("call.uni (retval0), gstm_jit_" + op + "_" + sfx + ", (" + String.join(", ", names) + ")");
    for (int i = 0; i < words(); i++) {
      line("ld.param.b32 %x" + i + ", [retval0+" + 4 * i + "]");
    }
    if (hasValue) {
      line("ld.param.b64 " + (value == null ? "%d3" : value) + ", [retval0+" + txBytes + "]");
    }
    line("ld.param.b32 %active, [retval0+" + (txBytes + (hasValue ? 8 : 0)) + "]");
    b.append("}\n");
  }

  /** Ends the body (result 0) unless the last operation left the transaction active. */
  private void exitUnlessActive() {
    line("setp.eq.u32 %q0, %active, 0");
    line("@%q0 bra $EXIT0");
  }

  /** A helper function's call: typed arguments, a 64-bit result (or an Alu record). */
  private void callHelper(String fn, List<String> args, int retBytes, List<String> loads) {
    b.append("{\n");
    List<String> names = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String[] typed = args.get(i).split(" ", 2);
      line(".param " + typed[0] + " param" + i);
      line("st.param" + typed[0] + " [param" + i + "], " + typed[1]);
      names.add("param" + i);
    }
    line(retBytes == 8 ? ".param .b64 retval0" : ".param .align 8 .b8 retval0[" + retBytes + "]");
    line("call.uni (retval0), " + fn + ", (" + String.join(", ", names) + ")");
    for (String l : loads) {
      line(l);
    }
    b.append("}\n");
  }

  /**
   * A fixed-slot read loaded early ({@link StaticSets#preloadsAt}): the read at {@code q} of
   * program {@code p}, relaxed as PrStmTx loads a word, into {@link #preloadRegister}.
   */
  private void preload(int p, int dir, int q) {
    int w = img[img[dir] + q];
    int bb = (w >>> 16) & 0xff;
    int regions = img[dir + 8];
    int storeRegion = img[regions + 2 * bb];
    int wordBytes = img[dir + 16] == 0 ? 0 : img[img[dir + 16] + bb];
    loadWord(preloadRegister(p, q), "%g" + (w >>> 24), length(regions, bb), storeRegion,
        wordBytes, "ld.relaxed.gpu.global");
  }

  private static String preloadRegister(int p, int q) {
    return "%hp" + p + "_" + q;
  }

  /** Bounds check: OUT_OF_RANGE unless {@code index} (int32, as unsigned) is below {@code len}. */
  private void below(String index, String len) {
    line("setp.ge.u32 %q0, " + index + ", " + len);
    line("@%q0 bra $OOR");
  }

  private void program(int p, int dir) {
    int code = img[dir];
    int codeLen = img[dir + 1];
    int slots = img[dir + 4];
    int arrays = img[dir + 6];
    int regions = img[dir + 8];
    int registers = img[dir + 12];
    long steps = img[dir + 13] & 0xffffffffL;
    String at = "$P" + p + "_";
    label("$P" + p);
    for (int r = 0; r < registers; r++) {
      line("mov.b64 %g" + r + ", 0");
    }
    BitSet hoisted = hoistedColumns(code, codeLen, slots, arrays);
    Map<Integer, String> early = new LinkedHashMap<>();
    if (look) {
      // The look's loads, done before it (lookLoads): its columns, then its early reads, in
      // their words of param_0; what did not fit is loaded here or read in program order.
      int slot = 0;
      BitSet rest = new BitSet();
      for (int col = hoisted.nextSetBit(0); col >= 0; col = hoisted.nextSetBit(col + 1)) {
        if (slot < RelaxationPtx.LOOK_PRE_WORDS) {
          line("ld.param.u64 %cv" + col + ", [" + name + "_param_0+" + 8 * slot++ + "]");
        } else {
          rest.set(col);
        }
      }
      loadColumns(rest);
      for (RelaxationPtx.Early e : RelaxationPtx.earlyReads(img, dir)) {
        if (slot < RelaxationPtx.LOOK_PRE_WORDS) {
          String v = "%ev" + earlyCount++; // unique across the set's programs: one function
          line(".reg .b64 " + v);
          line("ld.param.u64 " + v + ", [" + name + "_param_0+" + 8 * slot++ + "]");
          early.put(e.pc(), v);
        }
      }
    } else if (sfx.startsWith("r") || sfx.startsWith("v")) {
      // A relaxation's attempt: its edge's ends from the kernel's shared copy.
      BitSet given = RelaxationPtx.edgeColumns(img, hoisted).get(0, RELAX_ENDS);
      if (!given.isEmpty()) {
        line("mov.u32 %w0, %tid.x");
        line("mov.u32 %w1, " + EDGES);
        line("mad.lo.u32 %w0, %w0, 8, %w1");
      }
      for (int c = given.nextSetBit(0); c >= 0; c = given.nextSetBit(c + 1)) {
        line("ld.shared.u32 %w1, [%w0+" + 4 * c + "]");
        line("cvt.s64.s32 %cv" + c + ", %w1");
      }
      BitSet rest = (BitSet) hoisted.clone();
      rest.andNot(given);
      loadColumns(rest);
    } else {
      loadColumns(hoisted);
    }
    regionLengths(dir, regions);
    line("mov.u32 %budget, " + steps);
    StaticSets fixed = fixedSlots() ? StaticSets.of(img, dir, capacity(),
        SOURCE_INPUTS && sfx.startsWith("r") ? RELAX_SOURCE_COLUMN : -1) : null;
    if (fixed != null) {
      // The sets laid out at compile time where the names' locks are distinct (and, for an
      // attempt of either urgency, this one ordinary); else the general code below.
      String general = "$G" + p;
      guard(fixed, general);
      instructions(p, dir, "$S" + p + "_", fixed, early);
      label(general);
    }
    instructions(p, dir, at, null, early);
  }

  /**
   * Program p's code from its first instruction, its labels prefixed {@code at}: with {@code
   * fixed}, its reads and writes through the fixed-slot operations.
   */
  private void instructions(int p, int dir, String at, StaticSets fixed,
      Map<Integer, String> early) {
    int code = img[dir];
    int codeLen = img[dir + 1];
    int consts = img[dir + 2];
    int slots = img[dir + 4];
    int arrays = img[dir + 6];
    int regions = img[dir + 8];
    Map<String, StaticSets.Commit> tails = new LinkedHashMap<>();
    int pc = 0;
    while (pc < codeLen) {
      int w = img[code + pc];
      int op = w & 0xff;
      int a = (w >>> 8) & 0xff;
      int bb = (w >>> 16) & 0xff;
      int c = w >>> 24;
      label(at + pc);
      int next = pc + length(w);
      String ga = "%g" + a;
      String gb = "%g" + bb;
      String gc = "%g" + c;
      switch (op) {
        case Opcodes.RET -> ret(dir, fixed == null ? null : fixed.commitAt(pc));
        case Opcodes.RETRY -> {
          callTx("retry", List.of(), null);
          line("bra.uni $EXIT0");
        }
        case Opcodes.ABORT -> {
          if (!look) { // a look's abort runs the transaction, which stores its code
            line("shl.b64 %d0, %t64, 2");
            line("add.s64 %d0, %codes, %d0");
            line("cvt.u32.u64 %w0, " + ga);
            line("st.global.u32 [%d0], %w0");
          }
          line("mov.b32 %fault, " + USER_ABORT);
          line("bra.uni $FAULT");
        }
        case Opcodes.JMP, Opcodes.JZ, Opcodes.JNZ -> {
          int target = op == Opcodes.JMP ? w >>> 8 : (bb | c << 8);
          boolean backward = target < pc + 1;
          StaticSets.Commit tail = fixed == null || !FIXED_COMMIT ? null : fixed.commitAt(pc);
          String skip = fresh();
          if (op != Opcodes.JMP) {
            // not taken: on to the next instruction
            line("setp." + (op == Opcodes.JZ ? "ne" : "eq") + ".u64 %q1, " + ga + ", 0");
            line("@%q1 bra " + skip);
          }
          if (backward) {
            line("setp.eq.u32 %q0, %budget, 0");
            line("@%q0 bra $LOOPLIMIT");
            line("sub.u32 %budget, %budget, 1");
          }
          if (tail != null) {
            // To a RET, with sets of its own: it ends here, its commit fixed.
            String end = fresh();
            tails.put(end, tail);
            line("bra.uni " + end);
          } else {
            line("bra.uni " + at + target);
          }
          label(skip);
        }
        case Opcodes.MOV -> line("mov.b64 " + ga + ", " + gb);
        case Opcodes.LDK -> {
          int k = consts + 2 * (bb | c << 8);
          long v = (img[k] & 0xffffffffL) | ((long) img[k + 1] << 32);
          line("mov.b64 " + ga + ", " + String.format("0x%016x", v));
        }
        case Opcodes.LDP -> line("mov.b64 " + ga + ", %cv" + img[slots + (bb | c << 8)]);
        case Opcodes.LDPA -> {
          line("cvt.u32.u64 %w0, " + gc);
          below("%w0", Long.toString(img[arrays + 2 * bb + 1] & 0xffffffffL));
          if (selectable(slots, arrays, bb)) {
            // The element's column offset chosen among the offsets loaded up front.
            int first = img[arrays + 2 * bb];
            int len = img[arrays + 2 * bb + 1];
            line("mov.b64 %d2, %cv" + img[slots + first]);
            for (int i = 1; i < len; i++) {
              line("setp.eq.u32 %q0, %w0, " + i);
              line("selp.b64 %d2, %cv" + img[slots + first + i] + ", %d2, %q0");
            }
            line("mov.b64 " + ga + ", %d2");
          } else {
            line("add.u32 %w0, %w0, " + img[arrays + 2 * bb]);
            callHelper("gstm_jit_column", List.of(".b64 %imgp", ".b64 %colsp", ".b32 %n",
                ".b32 " + slots, ".b32 %w0", ".b32 %t"), 8,
                List.of("ld.param.b64 " + ga + ", [retval0]"));
          }
        }
        case Opcodes.RD, Opcodes.RDS -> {
          line("cvt.u32.u64 %w0, " + gc);
          below("%w0", length(regions, bb));
          StaticSets.Access fixedRead = fixed == null ? null : fixed.at(pc);
          if (fixedRead != null && fixed.preloaded(pc)) {
            line("mov.b64 " + ga + ", " + preloadRegister(p, pc));
          } else if (fixedRead != null) {
            fixedRead(fixedRead, img[regions + 2 * bb], ga);
            for (int q : fixed.preloadsAt(pc)) {
              preload(p, dir, q);
            }
          } else if (early.containsKey(pc)) {
            line("mov.b64 " + ga + ", " + early.get(pc)); // a look's read changes nothing
          } else {
            callTx(op == Opcodes.RD ? "rd" : "rds",
                List.of(".b32 " + img[regions + 2 * bb], ".b32 %w0"), ga);
            exitUnlessActive();
          }
        }
        case Opcodes.WR -> {
          line("cvt.u32.u64 %w0, " + gb);
          below("%w0", length(regions, a));
          StaticSets.Access fixedWrite = fixed == null ? null : fixed.at(pc);
          if (fixedWrite != null && fixedWrite.read() == StaticSets.Read.UNREACHABLE) {
            line("bra.uni $OOR");
          } else if (fixedWrite != null) {
            callTx("wrk", List.of(".b32 " + img[regions + 2 * a], ".b32 %w0", ".b64 " + gc,
                ".b32 " + (1 << fixedWrite.lockSlot()), ".b32 " + fixedWrite.lockSize(),
                ".b32 " + (1 << fixedWrite.writeSlot()), ".b32 " + fixedWrite.writeSize()), null);
            if (fixedWrite.lockSize() != 0) {
              exitUnlessActive(); // only a lock new to the set may refuse the write
            }
          } else {
            callTx("wr", List.of(".b32 " + img[regions + 2 * a], ".b32 %w0", ".b64 " + gc),
                null);
            exitUnlessActive();
          }
        }
        case Opcodes.SUM -> {
          String len = length(regions, bb);
          line("cvt.u32.u64 %w0, " + gc);
          below("%w0", len);
          line("cvt.u32.u64 %w1, %g" + img[code + pc + 1]);
          line("setp.gt.u32 %q0, %w1, " + len); // a negative count is a large unsigned one
          line("@%q0 bra $OOR");
          callTx("sum", List.of(".b32 " + img[regions + 2 * bb], ".b32 %w0", ".b32 %w1",
              ".b32 " + len), ga);
          exitUnlessActive();
        }
        case Opcodes.LEN -> line(img[regions + 2 * bb] >= 0
            ? "cvt.u64.u32 " + ga + ", %rl" + bb : "mov.b64 " + ga + ", 0");
        case Opcodes.LOOP -> {
          line("cvt.u32.u64 %w0, " + gb);
          line("cvt.s64.s32 %d0, %w0");
          line("cvt.u32.u64 %w1, " + ga);
          line("cvt.s64.s32 %d1, %w1");
          line("sub.s64 %d0, %d0, %d1");
          line("setp.gt.s64 %q0, %d0, " + img[code + pc + 1]);
          line("@%q0 bra $LOOPLIMIT");
        }
        case Opcodes.NOT -> line("xor.b64 " + ga + ", " + gb + ", 1");
        case Opcodes.CVT -> callHelper("gstm_jit_cvt", List.of(".b64 " + gb, ".b32 " + c), 8,
            List.of("ld.param.b64 " + ga + ", [retval0]"));
        default -> {
          if (op < Opcodes.ADD || op >= Opcodes.COUNT) {
            throw new PtxException("ptx: program " + p + " has no opcode " + op + " at " + pc);
          }
          callHelper("gstm_jit_alu_" + op, List.of(".b64 " + gb, ".b64 " + gc), 16,
              List.of("ld.param.b64 %d0, [retval0+0]", "ld.param.b32 %fault, [retval0+8]"));
          line("setp.ne.u32 %q0, %fault, 0");
          line("@%q0 bra $FAULT");
          line("mov.b64 " + ga + ", %d0");
        }
      }
      pc = next;
    }
    // The verifier ends every program with a return or a jump; should one run off its end, it
    // ends as the interpreter's unknown opcode does.
    line("mov.b32 %fault, " + OUT_OF_RANGE);
    line("bra.uni $FAULT");
    tails.forEach((end, commit) -> {
      label(end);
      ret(dir, commit);
    });
  }

  /**
   * A RET: the outputs stored, the first as the body's result; with {@code commit} (fixed sets)
   * the attempt commits here, its sets' sizes and written locks constants the commit folds
   * (PrStmTx::commit_fixed), else in the kernel after the body.
   */
  private void ret(int dir, StaticSets.Commit commit) {
    int outs = img[dir + 10];
    int outCount = img[dir + 11];
    // A look's outputs are not kept (only whether it got this far is): none stored.
    for (int o = 0; o < (look ? 0 : outCount); o++) {
      line("mul.wide.u32 %d0, %n, " + o);
      line("add.s64 %d0, %d0, %t64");
      line("shl.b64 %d0, %d0, 3");
      line("add.s64 %d0, %outs, %d0");
      line("st.global.u64 [%d0], %g" + img[outs + o]);
    }
    if (commit != null && FIXED_COMMIT) {
      callTx("cmt", List.of(".b32 " + commit.locks(), ".b32 " + commit.written(),
          ".b32 " + commit.writes(), ".b32 " + commit.inputs()), null);
    }
    line(outCount > 0 ? "mov.b64 %res, %g" + img[outs] : "mov.b64 %res, 0");
    line("bra.uni $EXIT");
  }

  /** Whether this body lays its programs' sets out at compile time where they qualify: the
   *  ordinary attempts' (o, r) and those of either urgency (d, checked at run time). */
  private boolean fixedSlots() {
    return FIXED_SLOTS && !look && (sfx.startsWith("o") || sfx.startsWith("r")
        || sfx.startsWith("d"));
  }

  /** The set capacity of this body's transaction type (its suffix's number). */
  private int capacity() {
    return Integer.parseInt(sfx.substring(1));
  }

  /**
   * Goes to {@code general} unless the fixed slots hold for this transaction: its names give
   * each lock row distinct locks (an index divided by the row's coverage, as lock_of does), and
   * the attempt is an ordinary one (an urgent attempt pre-locks as it goes: it searches).
   */
  private void guard(StaticSets fixed, String general) {
    b.append("{\n");
    line(".reg .b32 %fc, %fl<" + Math.max(1, maxNames(fixed)) + ">");
    line(".reg .pred %fp, %fok");
    if (sfx.startsWith("d")) {
      line("setp.ge.u32 %fok, %owner, " + ORDINARY);
    } else {
      line("setp.eq.u32 %fok, %owner, %owner");
    }
    for (Map.Entry<Integer, List<StaticSets.Name>> row : fixed.rows().entrySet()) {
      List<StaticSets.Name> names = row.getValue();
      if (names.size() < 2) {
        continue;
      }
      line("ld.shared.u32 %fc, [" + VIEW + "+"
          + (VIEW_REGIONS + REGION_VIEW_BYTES * row.getKey() + REGION_COVERAGE_AT) + "]");
      line("setp.ne.u32 %fp, %fc, 1");
      for (int i = 0; i < names.size(); i++) {
        StaticSets.Name n = names.get(i);
        line(n.column() ? "cvt.u32.u64 %fl" + i + ", %cv" + n.columnSlot()
            : "mov.b32 %fl" + i + ", " + (int) n.constant());
        line("@%fp div.u32 %fl" + i + ", %fl" + i + ", %fc");
        for (int j = 0; j < i; j++) {
          line("setp.ne.and.u32 %fok, %fl" + j + ", %fl" + i + ", %fok");
        }
      }
    }
    line("@!%fok bra " + general);
    b.append("}\n");
  }

  private static int maxNames(StaticSets fixed) {
    return fixed.rows().values().stream().mapToInt(List::size).max().orElse(0);
  }

  /** A transactional read through the fixed slots (value into {@code ga}). */
  private void fixedRead(StaticSets.Access access, int storeRegion, String ga) {
    switch (access.read()) {
      case NEW_LOCK -> {
        callTx("rdn", List.of(".b32 " + storeRegion, ".b32 %w0",
            ".b32 " + (1 << access.lockSlot()), ".b32 " + access.lockSize()), ga);
        exitUnlessActive();
      }
      // A word whose lock the set holds: read as read() reads it then, without a check.
      case HELD -> callTx("rds", List.of(".b32 " + storeRegion, ".b32 %w0"), ga);
      case BUFFERED -> callTx("rdb", List.of(".b32 " + (1 << access.writeSlot())), ga);
      case UNREACHABLE -> line("bra.uni $OOR");
      default -> throw new IllegalStateException(access.read().name());
    }
  }

}
