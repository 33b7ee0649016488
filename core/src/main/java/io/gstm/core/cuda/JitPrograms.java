package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuModuleUnload;

import io.gstm.core.cuda.ptx.ProgramPtx;
import io.gstm.core.cuda.ptx.PtxModule;
import io.gstm.core.engine.GstmException;
import io.gstm.core.program.Column;
import io.gstm.core.program.Program;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramBinding;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.bank.BankPrograms;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import jcuda.CudaException;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Program sets compiled for the device ({@link ProgramPtx}) and loaded through the driver's JIT,
 * kept in memory per engine and on disk by the hash of the device's architecture, the template
 * and the image's program part, so that another process (another executor, a later job) skips
 * generating the PTX, and the driver's own cache skips compiling it. The disk cache is
 * {@code gstm.jit.cache} (a directory; "off" disables it), by default {@code
 * ~/.cache/gstm-jit}. A set that cannot be compiled (its sets too large, PTX the linker
 * refuses) runs on the interpreter; the reason is logged once.
 */
final class JitPrograms implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JitPrograms.class);
  static final String RESOURCE = "/gstm/kernels/program_jit.ptx";
  /**
   * The largest set capacity compiled by default: larger sets ran slower compiled than
   * interpreted (docs/benchmark-log.md). {@code gstm.jit.maxCapacity} raises it up to what the
   * template holds ({@link ProgramPtx#MAX_CAPACITY}), to measure.
   */
  static final int DEFAULT_MAX_CAPACITY = 4;

  /**
   * Where {@link #function}'s kernel came from: compiled now, loaded from disk, held in memory;
   * or PENDING, being compiled in the background while the interpreter runs the batch.
   */
  enum Source { COMPILED, DISK, MEMORY, PENDING }

  /**
   * A compiled kernel and its module (null while PENDING), how it was obtained, and whether it
   * retries in place ({@link RetryLoops}).
   */
  record Kernel(CUfunction function, CUmodule module, Source source, long nanos, boolean inPlace) {
    /** How the batch ran, for {@code CudaEngine.lastProgramPath}. */
    String describe() {
      return source.name().toLowerCase(Locale.ROOT) + ", " + nanos / 1_000 + " us, "
          + (inPlace ? "retried in place" : "semantic loop");
    }
  }

  private final String templateHash;
  /** The parsed template, shared by the process's engines ({@link #prepared}). */
  private final CompletableFuture<PtxModule> template;
  /**
   * The template parsed, once per process, on a thread of its own from the first engine's
   * opening on: 0.1-0.3 s of parsing, and as long again for the generator's first set in a cold
   * JVM, were most of a first set's 0.6 s to compile on the H200 (ptxas 0.29 s).
   */
  private static CompletableFuture<PtxModule> prepared;
  private final Path cacheDir;
  private final Map<String, CUmodule> modules = new LinkedHashMap<>();
  private final Map<String, String> refused = new LinkedHashMap<>();
  /** Sets being compiled in the background. */
  private final Set<String> pending = new HashSet<>();
  /** The retry loop of each set whose programs never retry, by what its batches met. */
  private final RetryLoops loops = new RetryLoops();
  private final int maxCapacity;
  /** Makes the engine's context current on the compiling thread. */
  private final Runnable bindContext;
  private final ExecutorService compiler;
  private volatile boolean background;
  /**
   * {@code gstm.jit.loop=semantic}: every compiled set runs under the semantic contention
   * manager, even one that cannot retry (to compare the two loops; default "auto").
   */
  private final boolean alwaysSemantic =
      "semantic".equals(System.getProperty("gstm.jit.loop", "auto"));
  /** {@code gstm.jit.loop=in-place}: a set that never retries always retries in place. */
  private final boolean alwaysInPlace =
      "in-place".equals(System.getProperty("gstm.jit.loop", "auto"));
  /**
   * {@code gstm.jit.attempts}: "one" compiles ordinary and urgent attempts as one type, the
   * program's body once ({@link ProgramPtx#kernel(boolean, int, boolean)}); "two" as two types.
   */
  private final boolean oneAttemptType = oneAttemptType();

  static boolean oneAttemptType() {
    return !"two".equals(System.getProperty("gstm.jit.attempts", "one"));
  }
  private boolean closed;

  private JitPrograms(String templateText, String arch, Path cacheDir, Runnable bindContext) {
    this.bindContext = bindContext;
    this.maxCapacity = Math.min(ProgramPtx.MAX_CAPACITY,
        Integer.getInteger("gstm.jit.maxCapacity", DEFAULT_MAX_CAPACITY));
    this.background = Boolean.parseBoolean(System.getProperty("gstm.jit.background", "true"));
    this.compiler = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "gstm-jit");
      t.setDaemon(true);
      return t;
    });
    this.template = prepared(templateText);
    // A cubin is for one architecture: the device's is part of every key.
    this.templateHash = sha256((arch + "\n" + templateText).getBytes(StandardCharsets.UTF_8));
    this.cacheDir = cacheDir;
  }

  /** The template from the kernels jar, or null when the jar was built without it. */
  static String templateText() {
    try (InputStream in = JitPrograms.class.getResourceAsStream(RESOURCE)) {
      return in == null ? null : new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new GstmException("cannot read " + RESOURCE, e);
    }
  }

  /**
   * The compiler of this kernels jar for a device of sm_{major}{minor}, or null without a
   * template; {@code bindContext} makes the device's context current on a thread.
   */
  static JitPrograms open(int major, int minor, Runnable bindContext) {
    String text = templateText();
    if (text == null) {
      return null;
    }
    String dir = System.getProperty("gstm.jit.cache",
        Path.of(System.getProperty("user.home"), ".cache", "gstm-jit").toString());
    return new JitPrograms(text, "sm_" + major + minor, dir.equals("off") ? null : Path.of(dir),
        bindContext);
  }

  /**
   * The template of this kernels jar ({@code text}), parsed on a daemon thread started by the
   * first call, which then generates (and drops) the PTX of a small set, so that the JVM has
   * compiled the generator before the first set a batch brings: a cold generator took 0.2-0.3 s
   * for its first bank set, 15-30 ms once warm. An engine's close does not wait for it.
   */
  static synchronized CompletableFuture<PtxModule> prepared(String text) {
    if (prepared == null) {
      CompletableFuture<PtxModule> future = new CompletableFuture<>();
      Thread t = new Thread(() -> {
        long t0 = System.nanoTime();
        PtxModule parsed;
        try {
          parsed = PtxModule.parse(text);
        } catch (RuntimeException e) {
          future.completeExceptionally(e);
          return;
        }
        future.complete(parsed);
        long t1 = System.nanoTime();
        try {
          warmUp(parsed);
          LOG.debug("compiled programs: template parsed in {} ms, the generator warmed in {} ms",
              (t1 - t0) / 1_000_000, (System.nanoTime() - t1) / 1_000_000);
        } catch (RuntimeException e) {
          LOG.debug("compiled programs: the generator's warm-up failed ({})", e.getMessage());
        }
      }, "gstm-jit-template");
      t.setDaemon(true);
      t.start();
      prepared = future;
    }
    return prepared;
  }

  /** The PTX of one transfer program (as a TxState's), generated and inlined (then dropped). */
  static String warmUp(PtxModule template) {
    Program transfer = Program.parse(BankPrograms.KEYED_TRANSFER).get(0);
    ProgramBatch batch = ProgramBatch.builder(ProgramSet.of(transfer.compile()))
        .all(transfer.name(), 1).column(Column.wrapInt32("src", new int[1]))
        .column(Column.wrapInt32("dst", new int[1]))
        .column(Column.wrapInt64("amount", new long[1])).build();
    ProgramBinding binding = ProgramBinding.bind(batch,
        StoreLayout.of(new RegionSpec("balance", RegionType.INT64, 16, 1)), Algorithm.prStm());
    int[] image = ProgramImage.build(binding).words();
    return ProgramPtx.compile(template, image, binding.capacity(), ProgramPtx.kernel(false,
        binding.capacity(), oneAttemptType()));
  }

  /**
   * Whether a new program set is compiled on a thread of its own while the interpreter runs the
   * batches that need it (the default; {@code gstm.jit.background=false} makes the first batch
   * wait for the compilation instead, as benchmarks and tests want).
   */
  void compileInBackground(boolean value) {
    background = value;
  }

  /** The largest set capacity compiled. */
  int maxCapacity() {
    return maxCapacity;
  }

  /**
   * The compiled kernel for this image and set capacity, or null where the interpreter must run
   * it; a Kernel of no function while it compiles in the background. Call with the engine's
   * context current.
   */
  synchronized Kernel function(int[] image, int capacity, boolean programsRetry) {
    if (capacity > maxCapacity) {
      return null;
    }
    boolean retries = programsRetry || alwaysSemantic || loops.semantic(setKey(image, capacity));
    return function(image, capacity, ProgramPtx.kernel(retries, capacity, oneAttemptType),
        background);
  }

  /**
   * What a compiled batch of this set met, run in the semantic loop or in place: its aborts per
   * attempt and commits per second of kernel. A set whose programs never retry moves between
   * the two loops by them ({@link RetryLoops}).
   */
  synchronized void noteBatch(int[] image, int capacity, boolean ranSemantic, double abortRate,
      double commitsPerSecond) {
    if (capacity > maxCapacity || alwaysSemantic || alwaysInPlace) {
      return;
    }
    String set = setKey(image, capacity);
    if (loops.note(set, ranSemantic, abortRate, commitsPerSecond)) {
      LOG.info("compiled programs: a batch aborted {}% of its attempts ({} commits/s of kernel, "
              + "{}); the set's next batch {}", Math.round(100 * abortRate),
          String.format(Locale.ROOT, "%.3g", commitsPerSecond),
          ranSemantic ? "semantic loop" : "retried in place", loops.semantic(set)
              ? "runs in the semantic contention manager's loop" : "retries in place");
    }
  }

  /** A set's programs and capacity, whichever kernel runs them. */
  private String setKey(int[] image, int capacity) {
    return key(image, capacity, "");
  }

  /**
   * The compiled kernel of a program relaxation's run ({@link ProgramPtx#relaxKernel}) for this
   * image, its buckets drained without rounds when {@code drain}, compiled now if it is new (a relaxation has no interpreted round to run meanwhile),
   * for sets of up to {@link ProgramPtx#MAX_CAPACITY}; null where it cannot be compiled (the
   * reason is logged once).
   */
  synchronized CUfunction relaxFunction(int[] image, int capacity, boolean drain) {
    if (capacity > ProgramPtx.MAX_CAPACITY) {
      return null;
    }
    Kernel run = function(image, capacity, ProgramPtx.relaxKernel(capacity, drain), false);
    return run == null ? null : run.function();
  }

  private Kernel function(int[] image, int capacity, String symbol, boolean inBackground) {
    if (closed) {
      return null;
    }
    String key = key(image, capacity, symbol);
    if (refused.containsKey(key)) {
      return null;
    }
    if (pending.contains(key)) {
      return new Kernel(null, null, Source.PENDING, 0, false);
    }
    long t0 = System.nanoTime();
    CUmodule module = modules.get(key);
    Source source = Source.MEMORY;
    if (module == null) {
      byte[] ptx = readCache(key);
      if (ptx == null && inBackground) {
        pending.add(key);
        int[] copy = image.clone();
        compiler.execute(() -> compileAndLoad(key, copy, capacity, symbol));
        return new Kernel(null, null, Source.PENDING, 0, false);
      }
      source = ptx != null ? Source.DISK : Source.COMPILED;
      try {
        module = load(ptx != null ? ptx : compileToDisk(key, image, capacity, symbol));
      } catch (GstmException e) {
        refuse(key, e);
        return null;
      }
      keep(key, module);
    }
    CUfunction f = functionOf(module, symbol);
    long nanos = System.nanoTime() - t0;
    if (source != Source.MEMORY) {
      LOG.info("compiled programs: {} ({}) in {} ms", symbol,
          source.name().toLowerCase(Locale.ROOT), nanos / 1_000_000);
    }
    return new Kernel(f, module, source, nanos, symbol.contains("in_place"));
  }

  private static CUfunction functionOf(CUmodule module, String symbol) {
    CUfunction f = new CUfunction();
    CudaErrors.call("cuModuleGetFunction(" + symbol + ")",
        () -> cuModuleGetFunction(f, module, symbol));
    return f;
  }

  /** The background compilation of one set: its module is there for the next batch. */
  private void compileAndLoad(String key, int[] image, int capacity, String symbol) {
    long t0 = System.nanoTime();
    try {
      bindContext.run();
      byte[] ptx = compileToDisk(key, image, capacity, symbol);
      CUmodule module = load(ptx);
      synchronized (this) {
        pending.remove(key);
        if (closed) {
          CudaErrors.call("cuModuleUnload", () -> cuModuleUnload(module));
          return;
        }
        keep(key, module);
      }
      LOG.info("compiled programs: {} (in the background) in {} ms", symbol,
          (System.nanoTime() - t0) / 1_000_000);
    } catch (RuntimeException e) {
      synchronized (this) {
        pending.remove(key);
        refuse(key, e);
      }
    }
  }

  private byte[] compileToDisk(String key, int[] image, int capacity, String symbol) {
    long t0 = System.nanoTime();
    byte[] ptx = (compile(image, capacity, symbol) + "\0").getBytes(StandardCharsets.US_ASCII);
    LOG.debug("compiled programs: {}'s PTX generated in {} ms ({} kB); the driver's JIT next",
        symbol, (System.nanoTime() - t0) / 1_000_000, ptx.length / 1000);
    writeCache(key, ptx);
    return ptx;
  }

  private void refuse(String key, RuntimeException e) {
    refused.put(key, String.valueOf(e.getMessage()));
    LOG.warn("programs run on the interpreter: cannot compile them ({})", e.getMessage());
  }

  /**
   * Held until the engine closes: a module unloaded earlier could be one whose kernel another
   * thread is launching (a process compiles a few sets, each some hundred kB of device code).
   */
  private void keep(String key, CUmodule module) {
    modules.put(key, module);
  }

  private String compile(int[] image, int capacity, String symbol) {
    return ProgramPtx.compile(parsedTemplate(), image, capacity, symbol);
  }

  /** The template, once {@link #prepared} has parsed it (waiting for it if it has not yet). */
  PtxModule parsedTemplate() {
    try {
      return template.join();
    } catch (java.util.concurrent.CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r
          : new GstmException("cannot parse " + RESOURCE, e.getCause());
    }
  }

  /**
   * The driver's JIT: PTX (NUL-terminated) to a module for this device. The driver keeps what
   * it compiled in its own cache (~/.nv/ComputeCache, keyed by the PTX), so loading the same PTX
   * again, in any process, skips the compilation; JCuda cannot hand a linked cubin's bytes back
   * to Java, so gstm's disk cache keeps the PTX and leaves the cubin to the driver.
   */
  private static CUmodule load(byte[] ptx) {
    CUmodule module = new CUmodule();
    try {
      cuModuleLoadData(module, ptx);
    } catch (CudaException e) {
      throw new GstmException("the driver's JIT refused the compiled programs: " + e.getMessage());
    }
    return module;
  }

  private byte[] readCache(String key) {
    if (cacheDir == null) {
      return null;
    }
    Path file = cacheDir.resolve(key + ".ptx");
    try {
      return Files.exists(file) ? Files.readAllBytes(file) : null;
    } catch (IOException e) {
      LOG.debug("cannot read {}: {}", file, e.getMessage());
      return null;
    }
  }

  /** Written whole under a temporary name, then renamed: a reader never sees half a file. */
  private void writeCache(String key, byte[] ptx) {
    if (cacheDir == null) {
      return;
    }
    try {
      Files.createDirectories(cacheDir);
      Path tmp = Files.createTempFile(cacheDir, key, ".tmp");
      Files.write(tmp, ptx);
      Files.move(tmp, cacheDir.resolve(key + ".ptx"), StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      LOG.debug("cannot write the compiled programs to {}: {}", cacheDir, e.getMessage());
    }
  }

  /**
   * The template, the capacity, the kernel and the image without its column offsets (which
   * follow the batch's size) and its regions' lengths (the store's size; the compiled code reads
   * both at run time): what the compiled code depends on. A store that grows, or the same
   * programs over another store, reuse the set.
   */
  String key(int[] image, int capacity, String symbol) {
    int[] program = programPart(image);
    ByteBuffer buf = ByteBuffer.allocate(4 * program.length + 4).order(ByteOrder.LITTLE_ENDIAN);
    buf.putInt(capacity);
    for (int w : program) {
      buf.putInt(w);
    }
    return sha256((templateHash + symbol + sha256(buf.array())).getBytes(StandardCharsets.US_ASCII))
        .substring(0, 40);
  }

  /** The image with its column offsets and regions' lengths zeroed. */
  static int[] programPart(int[] image) {
    int[] program = image.clone();
    int columns = image[3];
    for (int c = 0; c < columns; c++) {
      program[ProgramImage.HEADER_WORDS + 2 * c] = 0;
    }
    for (int p = 0; p < image[2]; p++) {
      int dir = ProgramImage.HEADER_WORDS + 2 * columns + ProgramImage.DIR_WORDS * p;
      for (int r = 0; r < image[dir + 9]; r++) {
        program[image[dir + 8] + 2 * r + 1] = 0;
      }
    }
    return program;
  }

  private static String sha256(byte[] data) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Waits for a compilation in flight (its module is unloaded), then unloads every module. */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
    }
    compiler.shutdown();
    try {
      if (!compiler.awaitTermination(60, TimeUnit.SECONDS)) {
        LOG.warn("a program compilation did not end within 60 s of the engine's close");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      unloadAll();
    }
  }

  private void unloadAll() {
    for (CUmodule m : modules.values()) {
      CudaErrors.call("cuModuleUnload", () -> cuModuleUnload(m));
    }
    modules.clear();
  }
}
