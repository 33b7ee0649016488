package io.gstm.spark.graph;

import io.gstm.core.cuda.CudaCsrBuild;
import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.cuda.DeviceCsr;
import io.gstm.core.cuda.DeviceOutOfMemoryException;
import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.GraphRelaxer;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.ExecutorEngines;
import io.gstm.spark.exec.ResidentCache;
import io.gstm.spark.exec.TaskEngine;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A subgraph's CSR built on the executor's GPU ({@link CudaCsrBuild#fromParts}): the chunks the
 * input's tasks read go up as they are, their endpoints are mapped to local ids through the
 * numbering's table on the device, sorted there and the CSR comes back. On a GPU executor the
 * subgraph is one task's, and the host's parallel build of an R-MAT graph of 2^24 vertices (520
 * M edges for components) took 2.1-2.9 s of a 3.8-4.3 s job on 16 cores (docs/benchmarks.md).
 *
 * <p>The CSR lists each vertex's out-edges by target where the host's keeps input order: the
 * same edges and weights (duplicates merged at the lightest, self-loops dropped), so the same
 * relaxation results. {@code -Dgstm.graph.build=host} keeps the host's build (to compare).
 */
final class DeviceCsrBuild implements ParallelBuild.CsrBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(DeviceCsrBuild.class);

  private final GstmSettings settings;
  /** Where a numbered build leaves its relaxer on the GPU. */
  private final Resident resident;
  /** A build ran out of device memory: the host builds the rest (no second attempt). */
  private boolean tooLarge;

  /**
   * The run and subgraph a CSR is built for, and how it will be relaxed: its edges then stay on
   * the GPU, copied there into the relaxer the run's first superstep finds cached ({@link
   * ResidentCache}), never downloaded to be uploaded again (0.6-1.0 s of a Spark run at R-MAT
   * 2^24); the host reads them back only if something asks ({@link LocalGraph#csr}).
   */
  record Resident(long run, int partition, RelaxationKind kind) {}

  private DeviceCsrBuild(GstmSettings settings, Resident resident) {
    this.settings = settings;
    this.resident = resident;
  }

  /**
   * The device build for this task when its executor's GPU is usable and {@code
   * gstm.graph.build} (auto, the default; host) allows it, else {@link ParallelBuild#ON_HOST};
   * a numbered build leaves its edges on the GPU for {@code resident}.
   */
  static ParallelBuild.CsrBuilder forTask(GstmSettings settings, Resident resident) {
    String how = System.getProperty("gstm.graph.build", "auto");
    switch (how) {
      case "auto":
        break;
      case "host":
        return ParallelBuild.ON_HOST;
      default:
        throw new IllegalArgumentException("gstm.graph.build: expected auto or host, got " + how);
    }
    return ExecutorEngines.gpuUsable(settings) ? new DeviceCsrBuild(settings, resident)
        : ParallelBuild.ON_HOST;
  }

  @Override
  public CsrGraph build(int vertexCount, int[] table, List<EdgeChunk> chunks, boolean weighted,
      boolean undirected) {
    CudaCsrBuild.Numbered built = onGpu(engine -> new CudaCsrBuild.Numbered(
        CudaCsrBuild.fromParts(engine, vertexCount, parts(chunks, weighted), table, weighted,
            undirected), null, null));
    return built == null ? null : built.built().graph();
  }

  /**
   * The numbering too, on the device: the host's own (a table over the global ids, marked by
   * every edge, then numbered) took 0.35-1.06 s of a 2^24 subgraph's build. {@code
   * -Dgstm.graph.numbering=host} keeps the host's numbering (this returns null).
   */
  @Override
  public ParallelBuild.Numbered buildNumbered(int idBound, List<EdgeChunk> chunks,
      boolean weighted, boolean undirected) {
    String numbering = System.getProperty("gstm.graph.numbering", "device");
    switch (numbering) {
      case "device":
        break;
      case "host":
        return null;
      default:
        throw new IllegalArgumentException("gstm.graph.numbering: expected device or host, got "
            + numbering);
    }
    int extra = 0;
    for (EdgeChunk c : chunks) {
      extra += c.vertexCount();
    }
    int[] extraIds = new int[extra];
    int at = 0;
    for (EdgeChunk c : chunks) {
      System.arraycopy(c.vertices, 0, extraIds, at, c.vertexCount());
      at += c.vertexCount();
    }
    GraphRelaxer[] relaxer = new GraphRelaxer[1];
    CsrGraph[] onHost = new CsrGraph[1];
    CudaCsrBuild.Numbered built = onGpu(engine -> {
      CudaCsrBuild.Numbered b = CudaCsrBuild.fromPartsNumbered(engine, idBound,
          parts(chunks, weighted), extraIds, weighted, undirected, true);
      try (DeviceCsr csr = b.device()) {
        GraphRelaxer r = GraphRelaxer.onDevice(csr, resident.kind(),
            Supersteps.relaxOptions(settings, resident.kind()));
        if (ResidentCache.put(resident.run(), resident.partition(), engine, r)) {
          relaxer[0] = r;
        } else {
          onHost[0] = csr.download(); // not cached (r closed): the host keeps the edges
        }
      }
      return b;
    });
    if (built == null) {
      return null;
    }
    if (onHost[0] != null) {
      return new ParallelBuild.Numbered(onHost[0], built.ids(), null);
    }
    DeviceCsr csr = built.device();
    GraphRelaxer r = relaxer[0];
    CudaEngine on = csr.engine();
    GstmSettings s = settings;
    return new ParallelBuild.Numbered(null, built.ids(), new ParallelBuild.OnDevice(
        csr.offsets(), csr.edgeCount(), () -> {
          // The relaxer's engine, leased as any use of it is.
          try (TaskEngine lease = ExecutorEngines.acquire(s, on)) {
            return r.graph();
          }
        }));
  }

  private static List<CudaCsrBuild.Part> parts(List<EdgeChunk> chunks, boolean weighted) {
    List<CudaCsrBuild.Part> parts = new ArrayList<>(chunks.size());
    for (EdgeChunk c : chunks) {
      parts.add(new CudaCsrBuild.Part(c.src, c.dst, weighted ? c.w : null, c.size(),
          weighted ? c.weightSum() : Double.NaN));
    }
    return parts;
  }

  /** Runs a build on the task's GPU; null when the lease is not a GPU or the graph does not fit. */
  private CudaCsrBuild.Numbered onGpu(
      java.util.function.Function<CudaEngine, CudaCsrBuild.Numbered> build) {
    if (tooLarge) {
      return null;
    }
    try (TaskEngine lease = ExecutorEngines.acquire(settings)) {
      if (!lease.gpu() || !(lease.engine() instanceof CudaEngine engine)) {
        return null;
      }
      CudaCsrBuild.Numbered built;
      try {
        built = build.apply(engine);
      } catch (DeviceOutOfMemoryException e) {
        // The sort takes about 24 bytes a key on the device: the host builds what does not fit.
        tooLarge = true;
        LOG.info("gstm relaxation: the subgraph's CSR does not fit on the GPU ({}); built on "
            + "the host", e.getMessage());
        return null;
      }
      LOG.debug("gstm relaxation: csr on the GPU: {}", built.built().phases());
      return built;
    }
  }
}
