package io.gstm.spark.state;

import io.gstm.core.engine.Engine;
import io.gstm.core.store.TxStore;
import java.util.Map;
import java.util.TreeMap;

/**
 * The stores a partition's cross-partition rounds ({@link CrossRounds}) run their batches on:
 * one per size class (powers of four, from {@link #MIN_ROWS} rows), created when first needed and
 * kept across epochs until the partition closes. A round writes, runs and reads a store sized to
 * its own keys: with one store of every key the epoch's transactions name, the last rounds, a
 * few transactions each, cost as much as the first.
 */
final class RoundStores implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RoundStores.class);
  static final int MIN_ROWS = 1 << 10;

  private final Map<Integer, TxStore> byRows = new TreeMap<>();
  private Engine engine;
  private boolean closed;

  /** The rows of the class that holds {@code rows}: a power of four, at least {@link #MIN_ROWS}. */
  static int classRows(int rows) {
    long c = MIN_ROWS;
    while (c < rows) {
      c <<= 2;
    }
    return (int) Math.min(c, Integer.MAX_VALUE - 8);
  }

  /** A store of {@link #classRows}({@code rows}) rows of {@code schema}'s layout on {@code on}. */
  synchronized TxStore forRows(int rows, StateSchema schema, Engine on) {
    if (closed) {
      throw new IllegalStateException("gstm state '" + schema.name() + "': its round stores are "
          + "closed");
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
        LOG.debug("a round store did not close: {}", e.getMessage());
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
