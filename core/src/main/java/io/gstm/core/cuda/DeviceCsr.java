package io.gstm.core.cuda;

import io.gstm.core.engine.OpenState;
import io.gstm.core.store.TxStore;
import io.gstm.core.graph.CsrGraph;
import java.util.List;
import jcuda.Pointer;

/**
 * A CSR built on the GPU ({@link CudaCsrBuild}) whose targets and weights stay there: a relaxer
 * on the same engine copies them into its store on the device ({@link #copyInto}) instead of the
 * host downloading them and uploading them again (at R-MAT 2^24, 263 M weighted edges, 3.2 GB each
 * way, the download alone took 0.6-1.0 s of a Spark run). The offsets are on the host as well
 * (the relaxer's rounds and the connector's bookkeeping read them). Owned by its creator; closing
 * frees the device memory.
 */
public final class DeviceCsr implements AutoCloseable {
  private final CudaEngine engine;
  private final int[] offsets;
  private final int edgeCount;
  private final DeviceBuffer targets;
  private final DeviceBuffer weights;
  private final boolean weighted;
  private final double meanWeight;
  private final OpenState open = new OpenState("device CSR");

  /** Takes {@code targets} and {@code weights} (null when unweighted or without edges). */
  DeviceCsr(CudaEngine engine, int[] offsets, int edgeCount, DeviceBuffer targets,
      DeviceBuffer weights, boolean weighted, double meanWeight) {
    this.engine = engine;
    this.offsets = offsets;
    this.edgeCount = edgeCount;
    this.targets = targets;
    this.weights = weights;
    this.weighted = weighted;
    this.meanWeight = meanWeight;
  }

  public CudaEngine engine() {
    return engine;
  }

  public int vertexCount() {
    return offsets.length - 1;
  }

  public int edgeCount() {
    return edgeCount;
  }

  /** The offsets, on the host ({@code vertexCount + 1}; this object's array). */
  public int[] offsets() {
    return offsets;
  }

  public boolean weighted() {
    return weighted;
  }

  /**
   * The mean weight of the edges the build was given (duplicates and loops included: a bucket
   * width, not a result); 1 when unweighted or empty.
   */
  public double meanWeight() {
    return meanWeight;
  }

  /**
   * Copies the targets and (when weighted and {@code weightsRegion} is not negative) the weights
   * into regions {@code targetsRegion} and {@code weightsRegion} of {@code store}, on the device.
   *
   * @throws IllegalArgumentException if {@code store} is not a store of this engine, or its
   *     regions do not hold exactly the edges
   */
  public void copyInto(TxStore store, int targetsRegion, int weightsRegion) {
    open.check();
    if (!(store instanceof CudaTxStore s) || s.engine() != engine) {
      throw new IllegalArgumentException("store: not a store of the engine that built this CSR");
    }
    s.checkOpen();
    if (edgeCount == 0) {
      return;
    }
    checkHoldsEdges(s, targetsRegion, 4);
    if (weights != null && weightsRegion >= 0) {
      checkHoldsEdges(s, weightsRegion, 8);
    }
    engine.bind();
    // The buffers came from the engine's pool and may be larger than the edges.
    targets.copyTo(s.regions[targetsRegion], 4L * edgeCount);
    if (weights != null && weightsRegion >= 0) {
      weights.copyTo(s.regions[weightsRegion], 8L * edgeCount);
    }
  }

  private void checkHoldsEdges(CudaTxStore s, int region, int wordBytes) {
    long bytes = s.regionBytes[region];
    if (bytes != (long) wordBytes * edgeCount) {
      throw new IllegalArgumentException("store: region " + region + " holds " + bytes
          + " bytes, not the " + edgeCount + " edges' " + (long) wordBytes * edgeCount);
    }
  }

  /** An empty graph's: no edges, nothing on the device. */
  static DeviceCsr empty(CudaEngine engine, int vertexCount, boolean weighted) {
    return new DeviceCsr(engine, new int[vertexCount + 1], 0, null, null, weighted, 1.0);
  }

  /** The whole CSR on the host. */
  public CsrGraph download() {
    open.check();
    engine.bind();
    int[] tgt = new int[edgeCount];
    double[] wt = weighted ? new double[edgeCount] : null;
    if (edgeCount > 0) {
      PinnedStaging staging = engine.staging();
      staging.downloadArray(targets, 4L * edgeCount, 4, Pointer.to(tgt),
          (b, from, count) -> b.asIntBuffer().get(tgt, from, count));
      if (weights != null) {
        staging.downloadArray(weights, 8L * edgeCount, 8, Pointer.to(wt),
            (b, from, count) -> b.asDoubleBuffer().get(wt, from, count));
      }
    }
    return CsrGraph.ofBuiltArrays(vertexCount(), offsets, tgt, wt);
  }

  /** Gives the device memory back to the engine's pool. A second close throws. */
  @Override
  public void close() {
    open.close();
    if (targets == null) {
      return; // no edges: nothing on the device
    }
    engine.bind();
    engine.bufferPool().giveAll(weights == null ? List.of(targets) : List.of(targets, weights));
  }
}
