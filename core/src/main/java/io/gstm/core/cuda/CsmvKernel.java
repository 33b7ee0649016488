package io.gstm.core.cuda;

import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN;
import static jcuda.driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
import static jcuda.driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES;
import static jcuda.driver.JCudaDriver.cuDeviceGetAttribute;
import static jcuda.driver.JCudaDriver.cuFuncGetAttribute;
import static jcuda.driver.JCudaDriver.cuFuncSetAttribute;
import static jcuda.driver.JCudaDriver.cuLaunchCooperativeKernel;
import static jcuda.driver.JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.GstmException;
import io.gstm.core.store.Algorithm;
import io.gstm.core.workload.CsmvChecks;
import io.gstm.core.workload.Workload;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.CUdevice;
import jcuda.driver.CUfunction;

/**
 * Typed cooperative launch of {@code gstm_csmv_<workload>(gstm::csmv::Args)} from
 * {@code csmv.cu}: packs the args, checks before launch that the grid is co-resident, that the
 * commit record fits a server block's shared memory and that the server can track every client
 * warp, and turns the kernel's error word into a {@link GstmException}.
 */
final class CsmvKernel {
  static final String MODULE = "csmv";
  static final int ARGS_BYTES = 216;
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
    CUfunction f = engine.function(MODULE, symbol(workload));
    int dyn = alg.variant().server() ? (int) recordBytes(alg.recordEntries()) : 0;
    prepare(f, dyn);
    int[] v = new int[1];
    CudaErrors.call("cuOccupancyMaxActiveBlocksPerMultiprocessor",
        () -> cuOccupancyMaxActiveBlocksPerMultiprocessor(v, f, threadsPerBlock, dyn));
    int resident = v[0] * engine.multiprocessors() - (alg.variant().server() ? 1 : 0);
    int trackable = alg.variant().server() ? MAX_POLL * 32 : Integer.MAX_VALUE;
    return Math.max(0, Math.min(resident, trackable));
  }

  private static void prepare(CUfunction f, int dyn) {
    if (dyn > 48 * 1024) {
      CudaErrors.call("cuFuncSetAttribute", () -> cuFuncSetAttribute(f,
          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dyn));
    }
  }

  static BatchResult run(CudaEngine engine, CUdevice device, CudaCsmvStore store,
      Workload workload, TxBatch batch, RunOptions options) {
    CsmvChecks.validate(workload, batch);
    if (options.history()) {
      throw new IllegalArgumentException("history: the CUDA CSMV kernel records no history; "
          + "run history mode on the JVM engine");
    }
    Algorithm alg = store.algorithm();
    CUfunction f = engine.function(MODULE, symbol(workload.name()));
    int[] v = new int[1];
    CudaErrors.call("cuDeviceGetAttribute", () -> cuDeviceGetAttribute(v,
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device));
    long optIn = v[0];
    CudaErrors.call("cuFuncGetAttribute",
        () -> cuFuncGetAttribute(v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
    long staticShared = v[0];
    int tpb = batch.threadsPerBlock();
    int dynGuess = alg.variant().server() ? (int) Math.min(recordBytes(alg.recordEntries()),
        optIn - staticShared) : 0;
    prepare(f, dynGuess);
    CudaErrors.call("cuOccupancyMaxActiveBlocksPerMultiprocessor",
        () -> cuOccupancyMaxActiveBlocksPerMultiprocessor(v, f, tpb, dynGuess));
    int dyn = checkLaunch(alg, tpb, batch.blocks(), engine.multiprocessors(), v[0], optIn,
        staticShared);
    boolean server = alg.variant().server();
    int clientBlocks = batch.blocks();
    int grid = clientBlocks + (server ? 1 : 0);
    long clientThreads = (long) clientBlocks * tpb;
    long clientWarps = clientThreads / 32;
    int rcap = Math.max(1, CsmvChecks.maxUpdateReads(workload, batch));
    int n = batch.txCount();
    int ncols = batch.columns().length;
    int pollPerLane = (int) Math.max(1, (clientWarps + (tpb / 32) * 32L - 1) / ((tpb / 32) * 32L));
    long t0 = System.nanoTime();
    try (BatchBuffers buf = new BatchBuffers(n, batch.capacity(), false)) {
      DeviceBuffer types = buf.table(4L * n);
      types.upload(Pointer.to(batch.types()), 4L * n);
      DeviceBuffer cols = buf.table(4L * n * Math.max(1, ncols));
      for (int c = 0; c < ncols; c++) {
        cols.uploadAt((long) c * n, batch.columns()[c]);
      }
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
          .putLong(types.address()).putLong(cols.address()).putLong(buf.results.address())
          .putLong(stamps.address()).putLong(buf.outcomes.address())
          .putLong(buf.counters.address());
      for (int r = 0; r < 8; r++) {
        b.putInt(r < store.layout().regionCount() ? (int) store.layout().wordBase(r) : 0);
      }
      for (int i = 0; i < 6; i++) {
        b.putInt(i < batch.params().length ? batch.params()[i] : 0);
      }
      b.putInt(alg.versions()).putInt(n).putInt(ncols).putInt(rcap).putInt(alg.recordEntries())
          .putInt(alg.variant().flags()).putInt(options.maxRetries()).putInt(WAIT_MILLIS)
          .putInt(pollPerLane).putInt(0);
      byte[] args = b.array();
      long kernelNanos = engine.timed(() -> CudaErrors.call("launch " + MODULE,
          () -> cuLaunchCooperativeKernel(f, grid, 1, 1, tpb, 1, 1, dyn, null,
              Pointer.to(Pointer.to(args)))));
      int[] control = new int[4];
      ctrl.download(Pointer.to(control), 16);
      if (control[1] != 0) {
        throw new GstmException(control[1] == 2
            ? "a read-only transaction wrote (workload '" + workload.name() + "'): read-only "
                + "transactions must not write; the store may hold part of the batch"
            : "CSMV kernel gave up waiting: a server or client wait made no progress for "
                + WAIT_MILLIS + " ms (gstm.csmv.waitMillis); the store may hold part of the "
                + "batch");
      }
      BatchResult r = buf.collect(engine.name(), null, uploadNanos, kernelNanos);
      long[] st = new long[n];
      stamps.download(Pointer.to(st), 8L * n);
      for (int i = 0; i < n; i++) {
        st[i] &= 0xffffffffL;
      }
      return new BatchResult(r.engine(), r.outcomes(), r.counters(), r.results(),
          r.semanticConflicts(), null, r.uploadNanos(), r.kernelNanos(), r.downloadNanos(), st);
    }
  }
}
