package io.gstm.spark.graph;

import io.gstm.core.engine.Engine;
import io.gstm.core.graph.GraphRelaxer;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.ExecutorEngines;
import io.gstm.spark.exec.TaskEngine;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executor-side {@link GraphRelaxer}s of running relaxations, one per (run, partition): a
 * partition's subgraph is uploaded to its engine (the GPU's memory, or a JVM engine's store) in
 * its first superstep and stays there for the next ones. An entry is closed when its run ends
 * ({@link #release}), when a task of its partition gets another engine, or when the cache holds
 * more than {@value #MAX_ENTRIES} entries (least recently used first).
 */
final class RelaxerCache {
  private static final Logger LOG = LoggerFactory.getLogger(RelaxerCache.class);
  static final int MAX_ENTRIES = 256;

  private record Key(long run, int partition) {}

  private static final class Entry {
    final GraphRelaxer relaxer;
    final Engine engine;
    boolean inUse;

    Entry(GraphRelaxer relaxer, Engine engine) {
      this.relaxer = relaxer;
      this.engine = engine;
    }
  }

  private static final LinkedHashMap<Key, Entry> ENTRIES = new LinkedHashMap<>(16, 0.75f, true);

  private RelaxerCache() {}

  /** A relaxer and the engine lease it runs under; closing returns both. */
  static final class Handle implements AutoCloseable {
    final TaskEngine lease;
    final GraphRelaxer relaxer;
    private final Entry entry;

    Handle(TaskEngine lease, GraphRelaxer relaxer, Entry entry) {
      this.lease = lease;
      this.relaxer = relaxer;
      this.entry = entry;
    }

    @Override
    public void close() {
      try {
        if (entry == null) {
          relaxer.close(); // not cached: another task of this partition held the entry
        } else {
          synchronized (ENTRIES) {
            entry.inUse = false;
          }
        }
      } finally {
        lease.close();
      }
    }
  }

  /** The cached relaxer of {@code g} for run {@code run}, or a new one on the task's engine. */
  static Handle acquire(long run, LocalGraph g, RelaxationKind kind, GstmSettings settings) {
    Key key = new Key(run, g.partition);
    Entry cached;
    synchronized (ENTRIES) {
      cached = ENTRIES.get(key);
      if (cached != null && cached.inUse) {
        cached = null;
        key = null;
      } else if (cached != null) {
        cached.inUse = true;
      }
    }
    TaskEngine lease = ExecutorEngines.acquire(settings, cached == null ? null : cached.engine);
    try {
      if (cached != null && cached.engine == lease.engine()) {
        return new Handle(lease, cached.relaxer, cached);
      }
      if (cached != null) {
        remove(key, cached);
      }
      GraphRelaxer relaxer = new GraphRelaxer(lease.engine(), g.csr(), kind,
          GraphRelaxation.relaxOptions(settings));
      if (key == null) {
        return new Handle(lease, relaxer, null);
      }
      Entry fresh = new Entry(relaxer, lease.engine());
      fresh.inUse = true;
      List<Entry> evicted = new ArrayList<>();
      synchronized (ENTRIES) {
        ENTRIES.put(key, fresh);
        Iterator<Map.Entry<Key, Entry>> it = ENTRIES.entrySet().iterator();
        while (ENTRIES.size() - evicted.size() > MAX_ENTRIES && it.hasNext()) {
          Map.Entry<Key, Entry> e = it.next();
          if (!e.getValue().inUse) {
            evicted.add(e.getValue());
            it.remove();
          }
        }
      }
      evicted.forEach(RelaxerCache::closeQuietly);
      return new Handle(lease, relaxer, fresh);
    } catch (RuntimeException e) {
      lease.close();
      throw e;
    }
  }

  private static void remove(Key key, Entry entry) {
    synchronized (ENTRIES) {
      ENTRIES.remove(key, entry);
    }
    closeQuietly(entry);
  }

  /** Closes the relaxers of run {@code run} held by this JVM. */
  static void release(long run) {
    List<Entry> closing = new ArrayList<>();
    synchronized (ENTRIES) {
      Iterator<Map.Entry<Key, Entry>> it = ENTRIES.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<Key, Entry> e = it.next();
        if (e.getKey().run() == run && !e.getValue().inUse) {
          closing.add(e.getValue());
          it.remove();
        }
      }
    }
    closing.forEach(RelaxerCache::closeQuietly);
  }

  /** Entries held now (for tests). */
  static int size() {
    synchronized (ENTRIES) {
      return ENTRIES.size();
    }
  }

  private static void closeQuietly(Entry e) {
    try {
      e.relaxer.close();
    } catch (RuntimeException ex) {
      LOG.debug("closing a cached graph relaxer", ex);
    }
  }
}
