package io.gstm.spark.state;

import io.gstm.core.engine.Engine;
import io.gstm.core.store.TxStore;
import java.util.Map;
import java.util.TreeMap;

/**
 * The stores a partition runs the cross-partition batches it coordinates on ({@link CrossBatch}):
 * one per size class (powers of two, from {@link #MIN_ROWS} rows), created when first needed and
 * kept across epochs until the partition closes, so that an epoch neither allocates a store nor
 * writes and reads one much larger than the rows its batch names.
 */
final class CrossStores implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CrossStores.class);
  static final int MIN_ROWS = 1 << 10;

  private final Map<Integer, TxStore> byRows = new TreeMap<>();
  private Engine engine;
  private boolean closed;

  /** The rows of the class that holds {@code rows}: a power of two, at least {@link #MIN_ROWS}. */
  static int classRows(int rows) {
    long c = MIN_ROWS;
    while (c < rows) {
      c <<= 1;
    }
    return (int) Math.min(c, Integer.MAX_VALUE - 8);
  }

  /** A store of {@link #classRows}({@code rows}) rows of {@code schema}'s layout on {@code on}. */
  synchronized TxStore forRows(int rows, StateSchema schema, Engine on) {
    if (closed) {
      throw new IllegalStateException("gstm state '" + schema.name() + "': its cross-partition stores "
          + "are closed");
    }
    if (engine != on) {
      closeAll(); // the partition moved to another engine (a GPU lost: the JVM's)
      engine = on;
    }
    int size = classRows(rows);
    TxStore s = byRows.get(size);
    if (s == null) {
      s = on.createStore(schema.layout(size), schema.storeAlgorithm());
      byRows.put(size, s);
    }
    return s;
  }

  private void closeAll() {
    for (TxStore s : byRows.values()) {
      try {
        s.close();
      } catch (RuntimeException e) { // its engine went with its GPU: nothing more to free
        LOG.debug("a cross-partition store did not close: {}", e.getMessage());
      }
    }
    byRows.clear();
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      closeAll();
    }
  }
}
