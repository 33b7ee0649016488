package io.gstm.core.cuda;

import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN;
import static jcuda.driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceTotalMem;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetAttribute;
import static jcuda.driver.JCudaDriver.cuFuncGetAttribute;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRelease;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuModuleUnload;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.cuda.ptx.ProgramPtx;
import io.gstm.core.engine.Engine;
import io.gstm.core.engine.GstmException;
import io.gstm.core.engine.LimitsReport;
import io.gstm.core.engine.OpenState;
import io.gstm.core.engine.Resources;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramBinding;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.Workloads;
import io.gstm.core.workload.bank.BankWorkload;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs batches on one GPU through the JCuda driver API: the device's primary context (made
 * current on every calling thread), fatbins from the classpath loaded with
 * {@code cuModuleLoadData}, typed kernel launches, kernel time from CUDA events.
 *
 * <p>Open with {@link #open(int)}; the caller closes it after closing its stores.
 */
public final class CudaEngine implements Engine {
  private static final Logger LOG = LoggerFactory.getLogger(CudaEngine.class);

  private final CUdevice device;
  private final CUcontext context;
  private final String deviceName;
  private final int major;
  private final int minor;
  private final int multiprocessors;
  private final Map<String, CUmodule> modules = new LinkedHashMap<>();
  private final OpenState open = new OpenState("engine");
  /** Large copies between arrays and device memory go through it. */
  private final PinnedStaging staging;
  /**
   * Batch and CSR-build buffers kept for the next ones: at most {@code
   * gstm.cuda.idleBufferBytes}, by default a quarter of the device's memory; freed before an
   * allocation in this context would fail for want of memory.
   */
  private final DeviceBufferPool pool;
  /** Unregisters the pool's reclaimer. */
  private final Runnable unregisterReclaim;
  /** Program sets compiled for the device; null when the kernels jar has no template. */
  private JitPrograms jit;
  /** Whether PR-STM programs run compiled (where they can) or on the interpreter. */
  private volatile boolean compiledPrograms =
      !"interpreted".equals(System.getProperty("gstm.programs", "compiled"));
  /** How the last program batch ran, for benchmarks and logs. */
  private volatile String lastProgramPath = "none";

  private CudaEngine(CUdevice device, CUcontext context, String name, int major, int minor,
      int sms, long totalBytes) {
    this.device = device;
    this.context = context;
    this.pool = new DeviceBufferPool(Long.getLong("gstm.cuda.idleBufferBytes", totalBytes / 4));
    this.unregisterReclaim = DeviceBuffer.reclaimOnOutOfMemory(context, pool::trim);
    // The staging's cores start DMAs themselves: each binds the context first.
    this.staging = new PinnedStaging(
        () -> CudaErrors.call("cuCtxSetCurrent", () -> cuCtxSetCurrent(context)));
    this.deviceName = name;
    this.major = major;
    this.minor = minor;
    this.multiprocessors = sms;
  }

  /**
   * Opens device {@code ordinal}: checks the driver, the device and that the kernels jar was
   * built for its architecture, retains its primary context and loads every fatbin. Throws
   * {@link GstmException} saying what is missing. The caller closes the engine.
   */
  public static CudaEngine open(int ordinal) {
    // The driver and the device first, so that a machine without a GPU says so; a jar without
    // kernels then fails the architecture check below with its own reason.
    KernelArchitectures archs = KernelArchitectures.load();
    JCudaNatives.load();
    CUdevice dev = new CUdevice();
    String name;
    int[] v = new int[1];
    int major;
    int minor;
    int sms;
    long[] total = new long[1];
    try {
      JCudaDriver.setExceptionsEnabled(true);
      cuInit(0);
      cuDeviceGetCount(v);
      if (ordinal < 0 || ordinal >= v[0]) {
        throw new GstmException(
            "device " + ordinal + " does not exist: the driver sees " + v[0] + " CUDA device(s)");
      }
      cuDeviceGet(dev, ordinal);
      byte[] nameBytes = new byte[256];
      cuDeviceGetName(nameBytes, nameBytes.length, dev);
      name = new String(nameBytes, StandardCharsets.US_ASCII).trim();
      cuDeviceGetAttribute(v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
      major = v[0];
      cuDeviceGetAttribute(v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
      minor = v[0];
      cuDeviceGetAttribute(v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
      sms = v[0];
      cuDeviceTotalMem(total, dev);
    } catch (CudaException e) {
      throw CudaErrors.wrap("CUDA driver", e);
    }
    if (!archs.supports(major, minor)) {
      throw new GstmException(archs.explain(major, minor));
    }
    CUcontext ctx = new CUcontext();
    CudaErrors.call("cuDevicePrimaryCtxRetain", () -> cuDevicePrimaryCtxRetain(ctx, dev));
    CudaEngine engine = new CudaEngine(dev, ctx, name.replace("\0", ""), major, minor, sms,
        total[0]);
    return Resources.closeOnExcept(engine, e -> {
      e.bind();
      for (String kernel : archs.kernels()) {
        e.modules.put(kernel, loadModule(kernel));
      }
      e.jit = JitPrograms.open(major, minor, e::bind);
      return e;
    });
  }

  private static CUmodule loadModule(String kernel) {
    String resource = "/gstm/kernels/" + kernel + ".fatbin";
    byte[] image;
    try (InputStream in = CudaEngine.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new GstmException("kernel fatbin " + resource + " is missing from the class path");
      }
      image = in.readAllBytes();
    } catch (IOException e) {
      throw new GstmException("cannot read " + resource, e);
    }
    CUmodule module = new CUmodule();
    CudaErrors.call("cuModuleLoadData(" + kernel + ")", () -> cuModuleLoadData(module, image));
    return module;
  }

  /** Makes the primary context current on the calling thread (a context is per thread). */
  public void bind() {
    open.check();
    CudaErrors.call("cuCtxSetCurrent", () -> cuCtxSetCurrent(context));
  }

  /**
   * The compiled kernel of a program relaxation's run for this image ({@link
   * JitPrograms#relaxFunction}), its buckets drained without rounds when {@code drain}, or null
   * where programs are not compiled on this engine.
   */
  CUfunction relaxKernel(int[] image, int capacity, boolean drain) {
    return compiledPrograms && jit != null ? jit.relaxFunction(image, capacity, drain) : null;
  }

  /** The pinned buffer large array copies go through (the caller has bound the context). */
  PinnedStaging staging() {
    return staging;
  }

  /** Where batches take their device buffers from (the caller has bound the context). */
  DeviceBufferPool bufferPool() {
    return pool;
  }

  /** Resolves a kernel symbol in a loaded module. */
  CUfunction function(String module, String symbol) {
    CUmodule m = modules.get(module);
    if (m == null) {
      throw new GstmException("kernel module " + module + " is not loaded");
    }
    CUfunction f = new CUfunction();
    CudaErrors.call("cuModuleGetFunction(" + symbol + ")", () -> cuModuleGetFunction(f, m, symbol));
    return f;
  }

  /**
   * Whether PR-STM program batches run compiled for the device (the default, where the set's
   * capacity allows and the kernels jar has the template; system property {@code
   * gstm.programs=interpreted} turns it off) or on the interpreter, the reference.
   */
  public void setCompiledPrograms(boolean compiled) {
    this.compiledPrograms = compiled;
  }

  /**
   * Whether a new program set compiles on a thread of its own while the interpreter runs its
   * first batches (the default, {@code gstm.jit.background}), or the batch waits for it
   * (deterministic: benchmarks, tests).
   */
  public void setCompileInBackground(boolean background) {
    if (jit != null) {
      jit.compileInBackground(background);
    }
  }

  /** The largest set capacity run compiled (0 without a template in the kernels jar). */
  public int maxCompiledCapacity() {
    return jit == null ? 0 : jit.maxCapacity();
  }

  /**
   * How the last program batch ran: "interpreted", or "compiled" with where the kernel came from
   * (compiled now, the disk cache, memory) and how long that took.
   */
  public String lastProgramPath() {
    return lastProgramPath;
  }

  /** Names of the loaded modules. */
  public List<String> moduleNames() {
    return List.copyOf(modules.keySet());
  }

  /** Every kernel symbol the engine launches, by module; a GPU test resolves them all. */
  public static Map<String, List<String>> kernelSymbols() {
    List<String> bank = new ArrayList<>();
    for (int c : TxBatch.CAPACITIES) {
      bank.add(PrStmBankKernel.symbol(c));
    }
    List<String> probes = new ArrayList<>();
    for (ProbeKernel.Kind k : ProbeKernel.Kind.values()) {
      probes.add(k.symbol);
    }
    probes.add(ProbeKernel.FAULT_SYMBOL);
    Map<String, List<String>> symbols = new LinkedHashMap<>();
    symbols.put(PrStmBankKernel.MODULE, bank);
    symbols.put(ProbeKernel.MODULE, probes);
    symbols.put(CsmvKernel.MODULE, List.of(CsmvKernel.symbol(BankWorkload.NAME),
        CsmvKernel.symbol(io.gstm.core.workload.memcached.MemcachedWorkload.NAME)));
    List<String> program = new ArrayList<>();
    for (int c : io.gstm.core.program.ProgramBinding.CAPACITIES) {
      program.add(ProgramKernel.symbol(c));
    }
    program.add(ProgramKernel.CSMV_SYMBOL);
    symbols.put(ProgramKernel.MODULE, program);
    for (Algorithm a : List.of(Algorithm.gpuStm(), Algorithm.blocking(),
        Algorithm.obstructionFree())) {
      List<String> lockTable = new ArrayList<>();
      for (int c : io.gstm.core.program.ProgramBinding.CAPACITIES) {
        lockTable.add(LockTableKernel.symbol(a, c));
      }
      symbols.put(LockTableKernel.module(a), lockTable);
    }
    symbols.put(CudaGraphRelax.MODULE,
        List.of(CudaGraphRelax.SYMBOL, CudaGraphRelax.SPLIT_SYMBOL,
            CudaGraphRelax.LOOP_SYMBOL, CudaGraphRelax.DRAIN_SYMBOL));
    symbols.put(BareRelaxKernel.MODULE, List.of(BareRelaxKernel.SYMBOL));
    symbols.put(CudaCsrBuild.MODULE, CudaCsrBuild.SYMBOLS);
    symbols.put(CudaComponents.MODULE, CudaComponents.SYMBOLS);
    symbols.put(CudaKMeans.MODULE, List.of(CudaKMeans.ASSIGN_SYMBOL, CudaKMeans.SYMBOL));
    for (String workload : Workloads.semanticKernelNames()) {
      List<String> semantic = new ArrayList<>();
      for (int c : TxBatch.CAPACITIES) {
        semantic.add(SemanticKernel.symbol(workload, c));
      }
      symbols.put(SemanticKernel.module(workload), semantic);
    }
    return symbols;
  }

  /** Resolves every symbol of {@link #kernelSymbols()}; throws naming the first one missing. */
  public void resolveAllKernels() {
    bind();
    kernelSymbols().forEach((module, symbols) -> symbols.forEach(s -> function(module, s)));
  }

  @Override
  public String name() {
    return "cuda";
  }

  @Override
  public String device() {
    return deviceName + " (sm_" + major + minor + ", " + multiprocessors + " SMs)";
  }

  public int multiprocessors() {
    return multiprocessors;
  }

  /** Shared memory a block of this device may opt into, a kernel's static shared included. */
  long sharedOptInBytes() {
    int[] v = new int[1];
    CudaErrors.call("cuDeviceGetAttribute", () -> cuDeviceGetAttribute(v,
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device));
    return v[0];
  }

  /** The static shared memory of kernel {@code f}, out of the same per-block budget. */
  static long staticSharedBytes(CUfunction f) {
    int[] v = new int[1];
    CudaErrors.call("cuFuncGetAttribute",
        () -> cuFuncGetAttribute(v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
    return v[0];
  }

  @Override
  public TxStore createStore(StoreLayout layout) {
    bind();
    // Idle buffers do not crowd a store out: an allocation that does not fit frees them first.
    return new CudaTxStore(this, layout, Algorithm.prStm());
  }

  /**
   * A store in device memory for {@code algorithm}: CSMV's own, else the lock table that PR-STM,
   * GPU-STM and Cederman's STMs share (these three run transaction programs only: their kernels
   * are the program interpreter's); the caller closes it.
   */
  @Override
  public TxStore createStore(StoreLayout layout, Algorithm algorithm) {
    bind();
    if (algorithm.isGpuStm() || algorithm.isCederman()) {
      if (!modules.containsKey(LockTableKernel.module(algorithm))) {
        throw new IllegalArgumentException("algorithm: this kernels jar has no "
            + algorithm.label() + " kernel");
      }
      return new CudaTxStore(this, layout, algorithm);
    }
    if (!algorithm.isCsmv()) {
      return new CudaTxStore(this, layout, Algorithm.prStm());
    }
    if (!modules.containsKey(CsmvKernel.MODULE)) {
      throw new IllegalArgumentException("algorithm: this kernels jar has no CSMV kernel");
    }
    return new CudaCsmvStore(this, layout, algorithm);
  }

  /**
   * Client blocks of {@code threadsPerBlock} threads that a cooperative CSMV launch of
   * {@code workload} can hold beside its server on this device.
   */
  public int csmvMaxClientBlocks(Algorithm algorithm, int threadsPerBlock, String workload) {
    bind();
    return CsmvKernel.maxClientBlocks(this, algorithm, threadsPerBlock, workload);
  }

  @Override
  public BatchResult run(TxStore txStore, TxBatch batch, RunOptions options) {
    open.check();
    if (txStore instanceof CudaCsmvStore mv && mv.engine() == this) {
      mv.checkOpen();
      io.gstm.core.workload.Workload w = Workloads.of(batch);
      w.validate(mv.layout(), batch);
      bind();
      return CsmvKernel.run(this, mv, w, batch, options);
    }
    if (!(txStore instanceof CudaTxStore store) || store.engine() != this) {
      throw new IllegalArgumentException("store: belongs to another engine");
    }
    store.checkOpen();
    if (store.algorithm().kind() != Algorithm.Kind.PRSTM) {
      throw new IllegalArgumentException("algorithm: on the GPU " + store.algorithm().label()
          + " runs transaction programs only; run workload '" + batch.workload()
          + "' as programs (e.g. BankPrograms.batch) or on a PR-STM store");
    }
    Workloads.of(batch).validate(store.layout(), batch);
    if (!modules.containsKey(SemanticKernel.module(batch.workload()))) {
      throw new IllegalArgumentException(
          "workload: '" + batch.workload() + "' has no CUDA kernel in this build");
    }
    bind();
    // Plain bank batches take the issue-2 PR-STM kernel; everything else the semantic one.
    if (batch.workload().equals(BankWorkload.NAME) && BankWorkload.plain(batch)) {
      return runBank(store, batch, options);
    }
    return runSemantic(store, batch, options);
  }

  @Override
  public ProgramResult run(TxStore txStore, ProgramBatch batch, RunOptions options) {
    open.check();
    if (!modules.containsKey(ProgramKernel.MODULE)) {
      throw new IllegalArgumentException("programs: this kernels jar has no program kernels");
    }
    if (txStore instanceof CudaCsmvStore mv && mv.engine() == this) {
      mv.checkOpen();
      ProgramBinding binding = ProgramBinding.bind(batch, mv.layout(), mv.algorithm());
      bind();
      return CsmvKernel.runPrograms(this, mv, binding, options);
    }
    if (!(txStore instanceof CudaTxStore store) || store.engine() != this) {
      throw new IllegalArgumentException("store: belongs to another engine");
    }
    store.checkOpen();
    long bindStart = System.nanoTime();
    ProgramBinding binding = ProgramBinding.bind(batch, store.layout(), store.algorithm());
    bind();
    long bound = System.nanoTime();
    ProgramImage image = ProgramImage.build(binding);
    int n = batch.txCount();
    int cap = binding.capacity();
    int tpb = batch.threadsPerBlock();
    int registers = batch.programs().maxRegisters();
    long interpreterShared = image.sharedBytes(registers, tpb);
    Algorithm algorithm = store.algorithm();
    boolean prStm = algorithm.kind() == Algorithm.Kind.PRSTM;
    boolean programsRetry = ProgramPtx.retries(image.words(), batch.usedPrograms());
    JitPrograms.Kernel jitted = prStm && compiledPrograms && jit != null
        ? jit.function(image.words(), cap, programsRetry) : null;
    JitPrograms.Kernel compiled = jitted != null && jitted.function() != null ? jitted : null;
    // The compiled code keeps its registers in registers and its image in its instructions.
    long shared = compiled != null ? 0 : interpreterShared;
    if (compiled != null) {
      lastProgramPath = "compiled (" + compiled.describe() + ")";
    } else {
      lastProgramPath = jitted != null ? "interpreted (compiling in the background)"
          : "interpreted";
    }
    CUfunction f = compiled != null ? compiled.function()
        : prStm ? function(ProgramKernel.MODULE, ProgramKernel.symbol(cap))
        : function(LockTableKernel.module(algorithm), LockTableKernel.symbol(algorithm, cap));
    long available = sharedOptInBytes() - staticSharedBytes(f);
    if (shared > available) {
      throw new IllegalArgumentException("threadsPerBlock: a block of " + tpb + " threads needs "
          + shared + " B of shared memory for the programs (" + image.words().length
          + " image words and " + registers + " registers x 8 B per thread), more than the "
          + available + " B this device leaves a block of this kernel; use fewer threads per "
          + "block");
    }
    int[] initialVersions = options.history() ? store.lockVersions() : null;
    int outSlots = Math.max(1, batch.programs().maxOutputs());
    long t0 = System.nanoTime();
    long prepared = t0 - bound;
    try (BatchBuffers buf = new BatchBuffers(this, n, cap, options.history())) {
      ProgramBuffers pb = ProgramBuffers.upload(buf, binding, image, outSlots);
      sync();
      long uploadNanos = System.nanoTime() - t0;
      byte[] table = ProgramKernel.table(pb.image().address(), pb.types().address(),
          pb.columns().address(), buf.results.address(), pb.outputs().address(),
          pb.abortCodes().address(), n, image.words().length, registers, outSlots);
      byte[] out = KernelStructs.semanticOut(buf.outcomes.address(),
          buf.semanticConflicts.address(), buf.counters.address(),
          BatchBuffers.addressOrZero(buf.histReads), BatchBuffers.addressOrZero(buf.histWrites),
          BatchBuffers.addressOrZero(buf.histCounts), options);
      byte[] view = view(store);
      byte[] args = prStm ? null : LockTableKernel.args(algorithm,
          LockTableKernel.descriptors(algorithm, buf, batch.threads(), cap));
      long kernelNanos = timed(() -> {
        if (prStm) {
          ProgramKernel.launch(f, batch.blocks(), tpb, (int) shared, view, table, out);
        } else {
          LockTableKernel.launch(f, batch.blocks(), tpb, (int) shared, view, table, out, args);
        }
      });
      if (!options.results() || !ProgramBuffers.outputsWritten(batch)) {
        buf.resultsAllZero();
      }
      long collecting = System.nanoTime();
      BatchResult stats = buf.collect(name(), initialVersions, uploadNanos, kernelNanos);
      long collected = System.nanoTime();
      if (compiled != null && !programsRetry && kernelNanos > 0) {
        jit.noteBatch(image.words(), cap, !compiled.inPlace(), stats.abortRate(),
            stats.commits() * 1e9 / kernelNanos);
      }
      ProgramResult result = pb.result(stats, batch, options.allOutputs());
      if (LOG.isDebugEnabled()) {
        long done = System.nanoTime();
        LOG.debug("programs batch of {}: bound in {} ms, image and kernel found in {} ms, "
                + "uploaded in {} ms, kernel {} ms, outcomes collected in {} ms, outputs and "
                + "abort codes in {} ms; {} ms in all", n, ms(bound - bindStart), ms(prepared),
            ms(uploadNanos), ms(kernelNanos), ms(collected - collecting), ms(done - collected),
            ms(done - bindStart));
      }
      return result;
    }
  }

  /** Nanoseconds as milliseconds with one decimal, for the DEBUG lines of batches. */
  static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
  }

  private BatchResult runSemantic(CudaTxStore store, TxBatch batch, RunOptions options) {
    int n = batch.txCount();
    int ncols = batch.columns().length;
    CUfunction f = function(SemanticKernel.module(batch.workload()),
        SemanticKernel.symbol(batch.workload(), batch.capacity()));
    int[] initialVersions = options.history() ? store.lockVersions() : null;
    long t0 = System.nanoTime();
    try (BatchBuffers buf = new BatchBuffers(this, n, batch.capacity(), options.history())) {
      DeviceBuffer types = buf.table(4L * n);
      types.upload(Pointer.to(batch.types()), 4L * n);
      DeviceBuffer cols = buf.table(4L * n * Math.max(1, ncols));
      for (int c = 0; c < ncols; c++) {
        cols.uploadAt((long) c * n, batch.columns()[c]);
      }
      sync();
      long uploadNanos = System.nanoTime() - t0;
      byte[] view = view(store);
      byte[] table = KernelStructs.txTable(types.address(), cols.address(), buf.results.address(),
          n, ncols, batch.params());
      byte[] out = KernelStructs.semanticOut(buf.outcomes.address(),
          buf.semanticConflicts.address(), buf.counters.address(),
          BatchBuffers.addressOrZero(buf.histReads), BatchBuffers.addressOrZero(buf.histWrites),
          BatchBuffers.addressOrZero(buf.histCounts), options);
      long kernelNanos = timed(() -> SemanticKernel.launch(f, batch.blocks(),
          batch.threadsPerBlock(), view, table, out));
      return buf.collect(name(), initialVersions, uploadNanos, kernelNanos);
    }
  }

  static byte[] view(CudaTxStore store) {
    long[] bases = new long[store.regions.length];
    for (int r = 0; r < bases.length; r++) {
      bases[r] = store.regions[r].address();
    }
    return KernelStructs.storeView(store.layout(), store.locks.address(), bases);
  }

  private BatchResult runBank(CudaTxStore store, TxBatch batch, RunOptions options) {
    int n = batch.txCount();
    int k = BankWorkload.k(batch);
    CUfunction f = function(PrStmBankKernel.MODULE, PrStmBankKernel.symbol(batch.capacity()));
    int[] initialVersions = options.history() ? store.lockVersions() : null;
    long t0 = System.nanoTime();
    try (BatchBuffers buf = new BatchBuffers(this, n, batch.capacity(), options.history())) {
      DeviceBuffer types = buf.table(4L * n);
      types.upload(Pointer.to(batch.types()), 4L * n);
      DeviceBuffer accounts = buf.table(4L * n * k);
      for (int j = 0; j < k; j++) {
        accounts.uploadAt((long) j * n, batch.columns()[j]);
      }
      DeviceBuffer amount = buf.table(4L * n);
      amount.upload(Pointer.to(batch.columns()[k]), 4L * n);
      sync();
      long uploadNanos = System.nanoTime() - t0;
      byte[] view = view(store);
      byte[] bankBatch = KernelStructs.bankBatch(types.address(), accounts.address(),
          amount.address(), buf.results.address(), n, k, BankWorkload.region(batch));
      byte[] out = KernelStructs.batchOut(buf.outcomes.address(), buf.counters.address(),
          BatchBuffers.addressOrZero(buf.histReads), BatchBuffers.addressOrZero(buf.histWrites),
          BatchBuffers.addressOrZero(buf.histCounts), options);
      long kernelNanos = timed(() -> PrStmBankKernel.launch(f, batch.blocks(),
          batch.threadsPerBlock(), view, bankBatch, out));
      return buf.collect(name(), initialVersions, uploadNanos, kernelNanos);
    }
  }

  private void sync() {
    CudaErrors.call("cuCtxSynchronize", JCudaDriver::cuCtxSynchronize);
  }

  /** Runs a launch between two events; returns the GPU time in nanoseconds. */
  long timed(Runnable launch) {
    CUevent start = new CUevent();
    CUevent stop = new CUevent();
    CudaErrors.call("cuEventCreate", () -> {
      cuEventCreate(start, 0);
      cuEventCreate(stop, 0);
    });
    try {
      CudaErrors.call("cuEventRecord", () -> cuEventRecord(start, null));
      launch.run();
      float[] ms = new float[1];
      CudaErrors.call("kernel", () -> {
        cuEventRecord(stop, null);
        cuEventSynchronize(stop);
        cuCtxSynchronize();
        cuEventElapsedTime(ms, start, stop);
      });
      return Math.round(ms[0] * 1e6);
    } finally {
      CudaErrors.call("cuEventDestroy", () -> {
        cuEventDestroy(start);
        cuEventDestroy(stop);
      });
    }
  }

  @Override
  public LimitsReport probeLimits(int words) {
    if (words < 1) {
      throw new IllegalArgumentException("words must be at least 1, got " + words);
    }
    bind();
    int threadsPerBlock = 256;
    int blocks = multiprocessors * 8;
    int ops = 256;
    double total = (double) blocks * threadsPerBlock * ops;
    double[] rates = new double[ProbeKernel.Kind.values().length];
    try (DeviceBuffer data = new DeviceBuffer(4L * words);
        DeviceBuffer sink = new DeviceBuffer(8)) {
      int[] init = new int[words];
      for (int i = 0; i < words; i++) {
        init[i] = i * 0x9E3779B9;
      }
      data.upload(Pointer.to(init), 4L * words);
      for (ProbeKernel.Kind kind : ProbeKernel.Kind.values()) {
        CUfunction f = function(ProbeKernel.MODULE, kind.symbol);
        // Warm-up launch, then the best of three timed ones.
        ProbeKernel.launch(f, blocks, threadsPerBlock, data, words, ops, 1, sink);
        long best = Long.MAX_VALUE;
        for (int rep = 0; rep < 3; rep++) {
          int seed = rep + 2;
          best = Math.min(best, timed(() ->
              ProbeKernel.launch(f, blocks, threadsPerBlock, data, words, ops, seed, sink)));
        }
        rates[kind.ordinal()] = total * 1e9 / best;
      }
    }
    return new LimitsReport(device(), words, rates[0], rates[1], rates[2]);
  }

  /**
   * Copy rates between Java arrays and this device for {@code words} 32-bit words: the bounds a
   * batch's upload and download are judged against.
   */
  public CopyProbe probeCopies(int words) {
    return CopyProbe.measure(this, words);
  }

  /**
   * Frees the device buffers finished batches and CSR builds left for the next ones (at most
   * {@code gstm.cuda.idleBufferBytes}, by default a quarter of the device's memory): memory
   * another process may need. An allocation of this engine's context that would not fit does it
   * by itself.
   */
  public void releaseIdleMemory() {
    bind();
    pool.trim();
  }

  /** Free and total device memory, in bytes. */
  public record Memory(long freeBytes, long totalBytes) {}

  /** What the device has free now (all processes' allocations counted). */
  public Memory memoryInfo() {
    bind();
    long[] free = {0};
    long[] total = {0};
    CudaErrors.call("cuMemGetInfo", () -> cuMemGetInfo(free, total));
    return new Memory(free[0], total[0]);
  }

  /**
   * Launches a kernel that writes to an illegal address and waits for it: the sticky error that
   * the fatal-error test needs. It ruins this process's CUDA context; tests only.
   */
  void injectFault() {
    bind();
    try (DeviceBuffer data = new DeviceBuffer(4); DeviceBuffer sink = new DeviceBuffer(8)) {
      ProbeKernel.launch(function(ProbeKernel.MODULE, ProbeKernel.FAULT_SYMBOL), 1, 1, data, 1,
          1, 0, sink);
      sync();
    }
  }

  @Override
  public void close() {
    open.close();
    try {
      CudaErrors.call("cuCtxSetCurrent", () -> cuCtxSetCurrent(context));
      // Each part is freed even when another fails (a broken context fails them all).
      unregisterReclaim.run();
      Resources.closeAll(pool, staging, jit, () -> {
        for (CUmodule m : modules.values()) {
          CudaErrors.call("cuModuleUnload", () -> cuModuleUnload(m));
        }
      });
    } finally {
      modules.clear();
      CudaErrors.call("cuDevicePrimaryCtxRelease", () -> cuDevicePrimaryCtxRelease(device));
    }
  }
}
