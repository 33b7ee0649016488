package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gstm.core.cuda.ptx.ProgramPtx;
import io.gstm.core.cuda.ptx.PtxException;
import io.gstm.core.cuda.ptx.PtxModule;
import io.gstm.core.graph.ProgramRelaxationTest;
import io.gstm.core.program.Column;
import io.gstm.core.program.Program;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.ProgramBinding;
import io.gstm.core.soak.RandomPrograms;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.testing.ProgramCases;
import io.gstm.core.workload.bank.BankPrograms;
import io.gstm.core.workload.graph.GraphPrograms;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Compiled programs without a GPU: the built-in workloads and random programs compile to PTX
 * that ptxas accepts, with every call inlined and, for sets of 2, no stack frame (the
 * transaction in registers). Needs the template (from the kernels jar, or compiled here when
 * nvcc is on the PATH) and ptxas; skipped where the machine has neither.
 */
class ProgramPtxTest {
  private static PtxModule template;
  @TempDir
  static Path dir;

  @BeforeAll
  static void loadTemplate() throws Exception {
    String text = JitPrograms.templateText();
    if (text == null && onPath("nvcc")) {
      Path src = Path.of(System.getProperty("user.dir")).resolveSibling("kernels/src/main/cuda");
      Path out = dir.resolve("program_jit.ptx");
      int rc = run(List.of("nvcc", "-std=c++17", "-O3", "-rdc=true", "-ptx", "-arch=compute_90",
          "-I", src.resolve("include").toString(), "-o", out.toString(),
          src.resolve("jit/program_jit.cu").toString()), null);
      assertThat(rc).as("nvcc on the template").isZero();
      text = Files.readString(out);
    }
    template = text == null ? null : PtxModule.parse(text);
  }

  private static boolean onPath(String tool) {
    try {
      return run(List.of(tool, "--version"), null) == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private static int run(List<String> cmd, StringBuilder output) throws IOException,
      InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (output != null) {
      output.append(text);
    }
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return p.exitValue();
  }

  private static int[] image(ProgramBatch batch, StoreLayout layout) {
    return ProgramImage.build(ProgramBinding.bind(batch, layout, Algorithm.prStm())).words();
  }

  /** ptxas's report on the PTX: asserts it assembles, returns the stack frame of each kernel. */
  private static List<Integer> assemble(String ptx, String name) throws Exception {
    Path file = dir.resolve(name + ".ptx");
    Files.writeString(file, ptx);
    String dump = System.getProperty("gstm.ptx.dump");
    if (dump != null) {
      Files.createDirectories(Path.of(dump));
      Files.writeString(Path.of(dump, name + ".ptx"), ptx);
    }
    StringBuilder out = new StringBuilder();
    int rc = run(List.of("ptxas", "-arch=sm_90", "-O3", "-v", file.toString(), "-o",
        dir.resolve(name + ".cubin").toString()), out);
    assertThat(rc).as("ptxas on %s:\n%s", name, out).isZero();
    List<Integer> frames = new ArrayList<>();
    Matcher m = Pattern.compile("(\\d+) bytes stack frame").matcher(out);
    while (m.find()) {
      frames.add(Integer.parseInt(m.group(1)));
    }
    return frames;
  }

  /**
   * Every built-in workload's set, with ordinary and urgent attempts as two types and as one:
   * every call inlined, accepted by ptxas; the one type's kernel writes the body once, so its
   * PTX is much the shorter.
   */
  @Test
  void builtinWorkloadsCompileWithEveryCallInlined() throws Exception {
    assumeTrue(template != null && onPath("ptxas"), "needs the template and ptxas");
    for (ProgramCases.Case c : ProgramCases.all(64, 4, 21)) {
      ProgramBatch batch = c.programBatch(false);
      ProgramBinding binding = ProgramBinding.bind(batch, c.layout(), Algorithm.prStm());
      if (binding.capacity() > JitPrograms.DEFAULT_MAX_CAPACITY) {
        continue;
      }
      int[] image = ProgramImage.build(binding).words();
      boolean retries = ProgramPtx.retries(image, batch.usedPrograms());
      int[] lengths = new int[2];
      for (boolean oneType : new boolean[] {false, true}) {
        String ptx = ProgramPtx.compile(template, image, binding.capacity(), retries, oneType);
        assertThat(ptx).contains(ProgramPtx.kernel(retries, binding.capacity(), oneType))
            .doesNotContain("call.uni").doesNotContain(".func");
        lengths[oneType ? 1 : 0] = ptx.length();
        long t0 = System.nanoTime();
        List<Integer> frames = assemble(ptx,
            c.name().replaceAll("\\W", "_") + (oneType ? "_one" : ""));
        System.out.printf("ptxas %s (%s): %d ms, %d kB of PTX%n", c.name(),
            oneType ? "one attempt type" : "two", (System.nanoTime() - t0) / 1_000_000,
            ptx.length() / 1000);
        if (binding.capacity() == 2) {
          assertThat(frames).as(c.name()).containsOnly(0);
        }
      }
      assertThat(lengths[1]).as(c.name()).isLessThan(lengths[0] * 3 / 4);
    }
  }

  /**
   * The set an engine's template preparation compiles to warm the generator: the in-place
   * kernel of sets of 2, every call inlined, accepted by ptxas.
   */
  @Test
  void theGeneratorsWarmUpSetCompiles() throws Exception {
    assumeTrue(template != null && onPath("ptxas"), "needs the template and ptxas");
    String ptx = JitPrograms.warmUp(template);
    assertThat(ptx).contains(ProgramPtx.kernel(false, 2, JitPrograms.oneAttemptType()))
        .doesNotContain("call.uni")
        .doesNotContain(".func");
    assertThat(assemble(ptx, "warm_up")).containsOnly(0);
  }

  @Test
  void randomProgramsCompile() throws Exception {
    assumeTrue(template != null && onPath("ptxas"), "needs the template and ptxas");
    for (long seed = 1; seed <= 12; seed++) {
      RandomPrograms.Case c = RandomPrograms.generate(seed, 50, 1, 1, true);
      ProgramBinding binding = ProgramBinding.bind(c.batch(), c.layout(), Algorithm.prStm());
      if (binding.capacity() > JitPrograms.DEFAULT_MAX_CAPACITY) {
        continue;
      }
      String ptx;
      try {
        int[] image = image(c.batch(), c.layout());
        ptx = ProgramPtx.compile(template, image, binding.capacity(),
            ProgramPtx.retries(image, c.batch().usedPrograms()), seed % 2 == 0);
      } catch (PtxException e) {
        throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
      }
      assemble(ptx, "random" + seed);
    }
  }

  /**
   * A relaxation's run (its rounds of looks and transactions in one cooperative kernel, over
   * the generated body; or its buckets drained without rounds) compiles for the relaxation
   * programs of the tests, bound as CudaProgramRelax binds them, every call inlined, its
   * transaction in registers and inlined once.
   */
  @ParameterizedTest(name = "drained {0}")
  @ValueSource(booleans = {false, true})
  void relaxationRoundsCompileWithEveryCallInlined(boolean drain) throws Exception {
    assumeTrue(template != null && onPath("ptxas"), "needs the template and ptxas");
    for (String text : List.of(GraphPrograms.WIDEST, GraphPrograms.PATHS)) {
      Program program = Program.parse(text).get(0);
      StoreLayout layout = program.name().equals("widest")
          ? ProgramRelaxationTest.widestLayout(100) : ProgramRelaxationTest.pathsLayout(100);
      Relax relax = relax(text, layout, drain);
      String ptx = relax.ptx();
      assertThat(ptx).as(program.name()).contains(relax.kernel())
          .doesNotContain("call.uni").doesNotContain(".func").doesNotContain(".local");
      // The transaction in registers: no local memory of its own (nvcc's copy of an attempt
      // passed to the body took 248 bytes), at most a few words spilled.
      assertThat(assemble(ptx, (drain ? "drain_" : "relax_") + program.name())).as(program.name())
          .allMatch(frame -> frame <= 32);
      // Both reads of each look issued with its loads, ahead of it (LOOK_SITES).
      assertThat(earlyReads(ptx)).as(program.name()).isEqualTo(2 * LOOK_SITES);
      // Its ordinary attempts through fixed slots, after the check that src's and dst's locks
      // differ (FixedSlotsTest has the layout).
      assertThat(ptx).as(program.name()).containsPattern("setp\\.ne\\.and\\.u32 %\\w+_fok");
    }
  }

  /**
   * A look issues early only the reads every look that gets that far makes, at an index only a
   * column sets: not one behind a branch, nor one at an index the program computes.
   */
  @Test
  void aLookReadsEarlyOnlyWhatEveryLookReadsAtAColumn() {
    assumeTrue(template != null, "needs the template");
    String behindBranch = """
        program widest(src: int32, dst: int32, weight: float64)
            regions width: float64 outputs changed: int32 {
          if (weight > 0.0) {
            let w = min(width[src], weight);
            if (w > width[dst]) { width[dst] = w; changed = 1; }
          }
        }
        """;
    String computed = """
        program widest(src: int32, dst: int32, weight: float64)
            regions width: float64 outputs changed: int32 {
          let w = min(width[src], weight);
          var d = dst;
          d = d + 0;
          if (w > width[d]) { width[d] = w; changed = 1; }
        }
        """;
    StoreLayout layout = ProgramRelaxationTest.widestLayout(100);
    assertThat(earlyReads(relax(behindBranch, layout).ptx())).isZero();
    // width[src] early at every look site; width[d] is read at a register the body writes.
    assertThat(earlyReads(relax(computed, layout).ptx())).isEqualTo(LOOK_SITES);
  }

  /** A relaxation's run compiled for a program over the edges' src, dst and weight. */
  private record Relax(String kernel, String ptx) {}

  /** The relaxation kernel of {@code text}'s program bound as CudaProgramRelax binds it. */
  private static Relax relax(String text, StoreLayout layout) {
    return relax(text, layout, false);
  }

  /** As {@link #relax(String, StoreLayout)}, the kernel that drains its buckets when asked. */
  private static Relax relax(String text, StoreLayout layout, boolean drain) {
    Program program = Program.parse(text).get(0);
    ProgramBatch batch = ProgramBatch.builder(ProgramSet.of(program.compile()))
        .all(program.name(), 1).column(Column.wrapInt32("src", new int[1]))
        .column(Column.wrapInt32("dst", new int[1]))
        .column(Column.ofFloat64("weight", new double[1])).build();
    ProgramBinding binding = ProgramBinding.bind(batch, layout, Algorithm.prStm());
    String kernel = ProgramPtx.relaxKernel(binding.capacity(), drain);
    return new Relax(kernel, ProgramPtx.compile(template,
        ProgramImage.build(binding, 1_000_000).words(), binding.capacity(), kernel));
  }

  /**
   * A relaxation kernel's look loads: three in a pass (both slices' together, or one slice's
   * in a short list) and one in a flush (a later edge of a target looked at again).
   */
  private static final int LOOK_SITES = 4;

  /**
   * Early reads in a kernel: each look site's loads (gstm_jit_pre_p) declare a register for each
   * and load it, and its look (gstm_jit_look_p) declares one for each that it receives; counted
   * once a site by the loads: the one load of a word whose width the image gives, or the
   * predicated 32-bit one of a word of 4 or 8 bytes.
   */
  private static long earlyReads(String ptx) {
    return Pattern.compile("@%\\w*_(ep ld\\.global\\.cg\\.s(32|64)|e4 ld\\.global\\.cg\\.s32)")
        .matcher(ptx).results().count();
  }

  @Test
  void theKernelRetriesInPlaceUnlessAProgramTheBatchRunsCanRetry() {
    for (ProgramCases.Case c : ProgramCases.all(64, 4, 21)) {
      ProgramBatch batch = c.programBatch(false);
      int[] image = image(batch, c.layout());
      boolean[] used = batch.usedPrograms();
      boolean anyRetry = false;
      for (int p = 0; p < used.length; p++) {
        anyRetry |= used[p] && batch.programs().programs().get(p).analysis().retries();
      }
      assertThat(ProgramPtx.retries(image, used)).as(c.name()).isEqualTo(anyRetry);
      assertThat(ProgramPtx.kernel(anyRetry, 2))
          .isEqualTo(anyRetry ? "gstm_jit_prstm_s2" : "gstm_jit_prstm_in_place_s2");
      assertThat(ProgramPtx.kernel(anyRetry, 4, true))
          .isEqualTo(anyRetry ? "gstm_jit_prstm_one_s4" : "gstm_jit_prstm_in_place_one_s4");
    }
    // With every program of the bank's set counted, the withdrawal's retry is there.
    ProgramCases.Case bank = ProgramCases.all(64, 4, 21).get(0);
    ProgramBatch batch = bank.programBatch(false);
    boolean[] all = new boolean[batch.programs().size()];
    Arrays.fill(all, true);
    assertThat(ProgramPtx.retries(image(batch, bank.layout()), all)).isTrue();
  }

  /**
   * The compiled code reads the regions' lengths from the store's view: the same programs over
   * stores of other sizes compile to the same PTX and share one cache key, and an index at the
   * end of a region is still checked (against the length read, not a constant).
   */
  @Test
  void oneCompiledSetServesStoresOfEverySize() {
    assumeTrue(template != null, "needs the template");
    Program transfer = Program.parse(BankPrograms.KEYED_TRANSFER)
        .get(0);
    ProgramBatch batch = ProgramBatch.builder(ProgramSet.of(transfer.compile()))
        .all(transfer.name(), 1).column(Column.wrapInt32("src", new int[1]))
        .column(Column.wrapInt32("dst", new int[1]))
        .column(Column.wrapInt64("amount", new long[1])).build();
    List<String> ptx = new ArrayList<>();
    List<int[]> images = new ArrayList<>();
    for (int length : new int[] {16, 10_000_000}) {
      StoreLayout layout = StoreLayout.of(new RegionSpec("balance", RegionType.INT64,
          length, 1));
      ProgramBinding binding = ProgramBinding.bind(batch, layout, Algorithm.prStm());
      int[] image = ProgramImage.build(binding).words();
      images.add(image);
      ptx.add(ProgramPtx.compile(template, image, binding.capacity(), false));
    }
    assertThat(images.get(0)).as("the lengths are in the image").isNotEqualTo(images.get(1));
    assertThat(ptx.get(0)).isEqualTo(ptx.get(1)).contains("[gstm_jit_view+24]")
        .doesNotContain("10000000");
    assertThat(JitPrograms.programPart(images.get(0)))
        .isEqualTo(JitPrograms.programPart(images.get(1)));
  }
}
