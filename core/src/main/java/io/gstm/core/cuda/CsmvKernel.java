package io.gstm.core.cuda;

import static jcuda.driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
import static jcuda.driver.JCudaDriver.cuFuncSetAttribute;
import static jcuda.driver.JCudaDriver.cuLaunchCooperativeKernel;
import static jcuda.driver.JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.GstmException;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramBinding;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.store.Algorithm;
import io.gstm.core.workload.CsmvChecks;
import io.gstm.core.workload.Workload;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.CUfunction;

/**
 * Typed cooperative launch of {@code gstm_csmv_<workload>(gstm::csmv::Args)} from
 * {@code csmv.cu}: packs the args, checks before launch that the grid is co-resident, that the
 * commit record fits a server block's shared memory and that the server can track every client
 * warp, and turns the kernel's error word into a {@link GstmException}.
 */
final class CsmvKernel {
  static final String MODULE = "csmv";
  static final int ARGS_BYTES = 224;
  /** Words per commit-record entry: stamp, count, {@value CsmvChecks#MAX_WRITES} items. */
  static final int ENTRY_WORDS = CsmvChecks.MAX_WRITES + 2;
  /** Mailboxes one server lane polls, at most. */
  static final int MAX_POLL = 8;
  /**
   * Milliseconds a kernel-side wait may make no progress before it gives up and reports
   * (system property {@code gstm.csmv.waitMillis}, default 10 s; the sanitizer runs raise it).
   */
  static final int WAIT_MILLIS = Integer.getInteger("gstm.csmv.waitMillis", 10_000);

  private CsmvKernel() {}

  static String symbol(String workload) {
    return "gstm_csmv_" + workload;
  }

  /** Bytes of shared memory the commit record takes in a server block. */
  static long recordBytes(int entries) {
    return 4L * ENTRY_WORDS * entries;
  }

  /**
   * The checks made before launch, as a pure function: throws an IllegalArgumentException that
   * names the parameter and the limit.
   *
   * @return the dynamic shared memory to launch with
   */
  static int checkLaunch(Algorithm alg, int threadsPerBlock, int clientBlocks, int sms,
      int maxBlocksPerSm, long sharedOptIn, long staticShared) {
    if (threadsPerBlock % 32 != 0) {
      throw new IllegalArgumentException("threadsPerBlock must be a multiple of 32 on a CSMV "
          + "store (clients and servers work in whole warps), got " + threadsPerBlock);
    }
    boolean server = alg.variant().server();
    long dyn = server ? recordBytes(alg.recordEntries()) : 0;
    if (dyn + staticShared > sharedOptIn) {
      throw new IllegalArgumentException("recordEntries: a commit record of "
          + alg.recordEntries() + " entries needs " + dyn + " B of shared memory, more than "
          + "the " + (sharedOptIn - staticShared) + " B a server block can hold on this device "
          + "(at most " + (sharedOptIn - staticShared) / (4L * ENTRY_WORDS) + " entries)");
    }
    long total = clientBlocks + (server ? 1L : 0L);
    long resident = (long) maxBlocksPerSm * sms;
    if (total > resident) {
      throw new IllegalArgumentException("blocks: " + clientBlocks + " client blocks"
          + (server ? " + 1 server block" : "") + " = " + total + " exceed the " + resident
          + " blocks of " + threadsPerBlock + " threads this device keeps resident at once ("
          + maxBlocksPerSm + " per SM x " + sms + " SMs), which a cooperative launch needs");
    }
    if (server) {
      long clientWarps = (long) clientBlocks * threadsPerBlock / 32;
      long trackable = (long) threadsPerBlock / 32 * 32 * MAX_POLL;
      if (clientWarps > trackable) {
        throw new IllegalArgumentException("blocks: " + clientWarps + " client warps exceed the "
            + trackable + " a server block of " + threadsPerBlock / 32 + " warps can track ("
            + 32 * MAX_POLL + " per server warp)");
      }
    }
    return (int) dyn;
  }

  /** Client blocks that fit beside the server on this device for this variant. */
  static int maxClientBlocks(CudaEngine engine, Algorithm alg, int threadsPerBlock,
      String workload) {
    // Program batches run gstm_csmv_program, which lives in the program module.
    CUfunction f = engine.function(workload.equals("program") ? ProgramKernel.MODULE : MODULE,
        symbol(workload));
    int dyn = alg.variant().server() ? (int) recordBytes(alg.recordEntries()) : 0;
    prepare(f, dyn);
    int resident = blocksPerSm(f, threadsPerBlock, dyn) * engine.multiprocessors()
        - (alg.variant().server() ? 1 : 0);
    int trackable = alg.variant().server() ? MAX_POLL * 32 : Integer.MAX_VALUE;
    return Math.max(0, Math.min(resident, trackable));
  }

  /** Blocks of {@code f} an SM keeps resident at once. */
  private static int blocksPerSm(CUfunction f, int threadsPerBlock, int dyn) {
    int[] v = new int[1];
    CudaErrors.call("cuOccupancyMaxActiveBlocksPerMultiprocessor",
        () -> cuOccupancyMaxActiveBlocksPerMultiprocessor(v, f, threadsPerBlock, dyn));
    return v[0];
  }

  private static void prepare(CUfunction f, int dyn) {
    if (dyn > 48 * 1024) {
      CudaErrors.call("cuFuncSetAttribute", () -> cuFuncSetAttribute(f,
          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dyn));
    }
  }

  static BatchResult run(CudaEngine engine, CudaCsmvStore store,
      Workload workload, TxBatch batch, RunOptions options) {
    CsmvChecks.validate(workload, batch);
    checkNoHistory(options);
    int n = batch.txCount();
    int ncols = batch.columns().length;
    try (BatchBuffers buf = new BatchBuffers(engine, n, batch.capacity(), false)) {
      long t0 = System.nanoTime();
      DeviceBuffer types = buf.table(4L * n);
      types.upload(Pointer.to(batch.types()), 4L * n);
      DeviceBuffer cols = buf.table(4L * n * Math.max(1, ncols));
      for (int c = 0; c < ncols; c++) {
        cols.uploadAt((long) c * n, batch.columns()[c]);
      }
      Table table = new Table(symbol(workload.name()), "workload '" + workload.name() + "'", n,
          batch.threadsPerBlock(), batch.blocks(), types.address(), cols.address(), ncols,
          batch.params(), Math.max(1, CsmvChecks.maxUpdateReads(workload, batch)), 0);
      return launch(engine, store, buf, table, options, t0);
    }
  }

  /** A program batch on a CSMV store; the binding has checked what CSMV cannot run. */
  static ProgramResult runPrograms(CudaEngine engine, CudaCsmvStore store,
      ProgramBinding binding, RunOptions options) {
    checkNoHistory(options);
    ProgramBatch batch = binding.batch();
    int n = batch.txCount();
    ProgramImage image = ProgramImage.build(binding);
    int outSlots = Math.max(1, batch.programs().maxOutputs());
    try (BatchBuffers buf = new BatchBuffers(engine, n, binding.capacity(), false)) {
      long t0 = System.nanoTime();
      ProgramBuffers pb = ProgramBuffers.upload(buf, binding, image, outSlots);
      byte[] tab = ProgramKernel.table(pb.image().address(), pb.types().address(),
          pb.columns().address(), buf.results.address(), pb.outputs().address(),
          pb.abortCodes().address(), n, image.words().length,
          batch.programs().maxRegisters(), outSlots);
      DeviceBuffer ext = buf.table(ProgramKernel.TABLE_BYTES);
      ext.upload(Pointer.to(tab), ProgramKernel.TABLE_BYTES);
      Table table = new Table(ProgramKernel.CSMV_SYMBOL, "programs", n, batch.threadsPerBlock(),
          batch.blocks(), pb.types().address(), pb.columns().address(), 0, new int[0],
          binding.csmvReadCapacity(), ext.address());
      BatchResult stats = launch(engine, store, buf, table, options, t0);
      return pb.result(stats, batch, options.allOutputs());
    }
  }

  private static void checkNoHistory(RunOptions options) {
    if (options.history()) {
      throw new IllegalArgumentException("history: the CUDA CSMV kernel records no history; "
          + "run history mode on the JVM engine");
    }
  }

  /**
   * What one CSMV launch runs.
   *
   * @param module the fatbin holding {@code symbol}
   * @param what the workload or "programs", for errors
   * @param rcap read-set slots per update transaction
   * @param ext {@code Args::ext}: a program table, or 0
   */
  private record Table(String symbol, String what, int n, int threadsPerBlock, int blocks,
      long types, long cols, int ncols, int[] params, int rcap, long ext) {}

  private static BatchResult launch(CudaEngine engine, CudaCsmvStore store,
      BatchBuffers buf, Table tab, RunOptions options, long t0) {
    Algorithm alg = store.algorithm();
    CUfunction f = engine.function(tab.ext == 0 ? MODULE : ProgramKernel.MODULE, tab.symbol);
    long optIn = engine.sharedOptInBytes();
    long staticShared = CudaEngine.staticSharedBytes(f);
    int tpb = tab.threadsPerBlock;
    int dynGuess = alg.variant().server() ? (int) Math.min(recordBytes(alg.recordEntries()),
        optIn - staticShared) : 0;
    prepare(f, dynGuess);
    int dyn = checkLaunch(alg, tpb, tab.blocks, engine.multiprocessors(),
        blocksPerSm(f, tpb, dynGuess), optIn, staticShared);
    boolean server = alg.variant().server();
    int clientBlocks = tab.blocks;
    int grid = clientBlocks + (server ? 1 : 0);
    long clientThreads = (long) clientBlocks * tpb;
    long clientWarps = clientThreads / 32;
    int rcap = tab.rcap;
    int n = tab.n;
    int pollPerLane = (int) Math.max(1, (clientWarps + (tpb / 32) * 32L - 1) / ((tpb / 32) * 32L));
    DeviceBuffer stamps = buf.table(8L * n);
    stamps.zero();
    DeviceBuffer ctrl = buf.table(32);  // see Args::ctrl in csmv.cuh
    ctrl.zero();
    DeviceBuffer grecord = buf.table(server ? 4 : recordBytes(alg.recordEntries()));
    grecord.zero();
    DeviceBuffer mail = buf.table(16 * clientWarps);
    mail.zero();
    DeviceBuffer info = buf.table(16 * clientThreads);
    DeviceBuffer rset = buf.table(4L * rcap * clientThreads);
    DeviceBuffer wset = buf.table(8L * CsmvChecks.MAX_WRITES * clientThreads);
    CudaErrors.call("cuCtxSynchronize", jcuda.driver.JCudaDriver::cuCtxSynchronize);
    long uploadNanos = System.nanoTime() - t0;
    ByteBuffer b = ByteBuffer.allocate(ARGS_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(store.heads.address()).putLong(store.slots.address()).putLong(store.gts.address())
        .putLong(ctrl.address()).putLong(grecord.address()).putLong(mail.address())
        .putLong(info.address()).putLong(rset.address()).putLong(wset.address())
        .putLong(tab.types).putLong(tab.cols).putLong(buf.results.address())
        .putLong(stamps.address()).putLong(buf.outcomes.address())
        .putLong(buf.counters.address()).putLong(tab.ext);
    for (int r = 0; r < 8; r++) {
      b.putInt(r < store.layout().regionCount() ? (int) store.layout().wordBase(r) : 0);
    }
    for (int i = 0; i < 6; i++) {
      b.putInt(i < tab.params.length ? tab.params[i] : 0);
    }
    b.putInt(alg.versions()).putInt(n).putInt(tab.ncols).putInt(rcap).putInt(alg.recordEntries())
        .putInt(alg.variant().flags()).putInt(options.maxRetries()).putInt(WAIT_MILLIS)
        .putInt(pollPerLane).putInt(0);
    byte[] args = b.array();
    long kernelNanos = engine.timed(() -> CudaErrors.call("launch " + tab.symbol,
        () -> cuLaunchCooperativeKernel(f, grid, 1, 1, tpb, 1, 1, dyn, null,
            Pointer.to(Pointer.to(args)))));
    int[] control = new int[4];
    ctrl.download(Pointer.to(control), 16);
    if (control[1] != 0) {
      throw new GstmException(control[1] == 2
          ? "a read-only transaction wrote (" + tab.what + "): read-only "
              + "transactions must not write; the store may hold part of the batch"
          : "CSMV kernel gave up waiting: a server or client wait made no progress for "
              + WAIT_MILLIS + " ms (gstm.csmv.waitMillis); the store may hold part of the "
              + "batch");
    }
    BatchResult r = buf.collect(engine.name(), null, uploadNanos, kernelNanos, true);
    long[] st = new long[n];
    buf.download(stamps, st);
    for (int i = 0; i < n; i++) {
      st[i] &= 0xffffffffL;
    }
    return r.toBuilder().history(null).stamps(st).build();
  }
}
