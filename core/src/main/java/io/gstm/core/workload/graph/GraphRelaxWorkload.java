package io.gstm.core.workload.graph;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.BatchChecks;
import io.gstm.core.workload.TxContext;
import io.gstm.core.workload.NamedWorkload;
import io.gstm.core.workload.ColumnSlot;
import io.gstm.core.workload.ParamSlot;

/**
 * Graph relaxation over a CSR graph held in the store: one transaction relaxes a chunk of one
 * active vertex's out-edges. Twin of {@code gstm/workloads/graph_relax.cuh}; keep the two in
 * step. {@link io.gstm.core.graph.GraphRelaxer} builds the batches.
 *
 * <p>Store: a FLOAT64 region of vertex values (transactional), an INT32 region of edge targets
 * and a FLOAT64 region of edge weights, both read-only (read with
 * {@link TxContext#readShared}, never written, so their locks are never taken).
 *
 * <p>Batch encoding: type {@link #SHORTEST_PATHS} or {@link #COMPONENTS}; column 0 the vertex
 * {@code u}, column 1 its first edge of the chunk, column 2 the chunk's edge count (at most
 * capacity - 1, so that {@code u} and every target fit the read set); {@code params =
 * {valuesRegion, targetsRegion, weightsRegion, weighted}}.
 *
 * <p>Body: reads {@code value(u)}; for every edge {@code u -> v} of the chunk reads
 * {@code value(v)} and, if the candidate ({@code value(u) + w} for shortest paths, with w = 1
 * when unweighted; {@code value(u)} for components) is smaller, writes it. Values only ever
 * decrease. Returns 0.
 */
public final class GraphRelaxWorkload extends NamedWorkload {
  public static final String NAME = "graph-relax";
  public static final GraphRelaxWorkload INSTANCE = new GraphRelaxWorkload();

  public static final int SHORTEST_PATHS = 0;
  public static final int COMPONENTS = 1;
  /**
   * Set capacity of a relaxation transaction of this workload (a vertex and up to {@link #CHUNK}
   * of its out-edges) on the JVM engine and in batches under the semantic contention manager
   * ({@code gstm_semantic_graph_relax_s16}); the GPU's own rounds ({@code graph_relax.cu}) run a
   * transaction of 2 entries per edge instead.
   */
  public static final int CAPACITY = 16;
  /** Out-edges per transaction at most: the capacity less the entry of the source vertex. */
  public static final int CHUNK = CAPACITY - 1;

  /** The columns, one value per transaction. */
  public enum Column implements ColumnSlot { VERTEX, FIRST_EDGE, EDGE_COUNT }

  /** The slots of {@code params}: three region indices, then 1 for weighted edges or 0. */
  public enum Param implements ParamSlot {
    VALUES_REGION, TARGETS_REGION, WEIGHTS_REGION, WEIGHTED
  }

  private GraphRelaxWorkload() {
    super(NAME, 0, 0);
  }

  @Override
  public void validate(StoreLayout layout, TxBatch batch) {
    BatchChecks.params(batch, "graph-relax", Param.values());
    int values = Param.VALUES_REGION.region(batch, layout, RegionType.FLOAT64);
    int targets = Param.TARGETS_REGION.region(batch, layout, RegionType.INT32);
    int weights = Param.WEIGHTS_REGION.region(batch, layout, RegionType.FLOAT64);
    int weighted = Param.WEIGHTED.of(batch);
    if (values == targets || values == weights) {
      throw new IllegalArgumentException(
          "valuesRegion: must differ from the read-only edge regions");
    }
    if (weighted != 0 && weighted != 1) {
      throw new IllegalArgumentException("weighted must be 0 or 1, got " + weighted);
    }
    BatchChecks.columns(batch, "graph-relax", Column.values());
    BatchChecks.types(batch, "graph-relax", "shortest paths", "components");
    int vertexCount = layout.region(values).length();
    int edgeWords = layout.region(targets).length();
    int weightWords = layout.region(weights).length();
    int maxChunk = batch.capacity() - 1;
    int[] types = batch.types();
    int[] vertex = Column.VERTEX.of(batch);
    int[] first = Column.FIRST_EDGE.of(batch);
    int[] count = Column.EDGE_COUNT.of(batch);
    for (int t = 0; t < types.length; t++) {
      if (vertex[t] < 0 || vertex[t] >= vertexCount) {
        throw new IllegalArgumentException("vertex " + vertex[t] + " (transaction " + t
            + ") is out of range: vertices 0.." + (vertexCount - 1));
      }
      if (count[t] < 1 || count[t] > maxChunk) {
        throw new IllegalArgumentException("edgeCount " + count[t] + " (transaction " + t
            + ") must be in 1.." + maxChunk + " (capacity " + batch.capacity() + " - 1)");
      }
      long end = (long) first[t] + count[t];
      if (first[t] < 0 || end > edgeWords
          || (types[t] == SHORTEST_PATHS && weighted == 1 && end > weightWords)) {
        throw new IllegalArgumentException("edges " + first[t] + ".." + (end - 1)
            + " (transaction " + t + ") are out of range: the graph has " + edgeWords
            + " edge words");
      }
    }
  }

  @Override
  public long run(TxContext tx, TxBatch batch, int t) {
    int values = Param.VALUES_REGION.of(batch);
    int targets = Param.TARGETS_REGION.of(batch);
    int weights = Param.WEIGHTS_REGION.of(batch);
    boolean sssp = batch.types()[t] == SHORTEST_PATHS;
    boolean weighted = Param.WEIGHTED.of(batch) == 1;
    int u = Column.VERTEX.of(batch)[t];
    int first = Column.FIRST_EDGE.of(batch)[t];
    int end = first + Column.EDGE_COUNT.of(batch)[t];
    double du = Double.longBitsToDouble(tx.read(values, u));
    for (int e = first; e < end; e++) {
      int v = (int) tx.readShared(targets, e);
      double candidate = du;
      if (sssp) {
        candidate += weighted ? Double.longBitsToDouble(tx.readShared(weights, e)) : 1.0;
      }
      double dv = Double.longBitsToDouble(tx.read(values, v));
      if (candidate < dv) {
        tx.write(values, v, Double.doubleToRawLongBits(candidate));
      }
    }
    return 0;
  }
}
