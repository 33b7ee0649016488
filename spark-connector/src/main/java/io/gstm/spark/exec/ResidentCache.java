package io.gstm.spark.exec;

import io.gstm.core.engine.Engine;
import io.gstm.spark.conf.GstmSettings;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executor-side state that stays resident on an engine across the iterations of one job, one per
 * (run, partition): a partition's graph relaxer or k-means updater is created (its data uploaded
 * to the GPU, or a JVM engine's store) in the first iteration and used again by the next ones. An
 * entry is closed when its run ends ({@link #release}), when a task of its partition gets another
 * engine, or when more than {@value #MAX_ENTRIES} entries are held (least recently used first).
 */
public final class ResidentCache {
  private static final Logger LOG = LoggerFactory.getLogger(ResidentCache.class);
  static final int MAX_ENTRIES = 256;

  private record Key(long run, int partition) {}

  private static final class Entry {
    final AutoCloseable value;
    final Engine engine;
    boolean inUse;

    Entry(AutoCloseable value, Engine engine) {
      this.value = value;
      this.engine = engine;
    }
  }

  private static final LinkedHashMap<Key, Entry> ENTRIES = new LinkedHashMap<>(16, 0.75f, true);

  private ResidentCache() {}

  /** A resident value and the engine lease it runs under; closing returns both. */
  public static final class Handle<T extends AutoCloseable> implements AutoCloseable {
    private final TaskEngine lease;
    private final T value;
    private final Entry entry;

    Handle(TaskEngine lease, T value, Entry entry) {
      this.lease = lease;
      this.value = value;
      this.entry = entry;
    }

    public TaskEngine lease() {
      return lease;
    }

    public T value() {
      return value;
    }

    @Override
    public void close() {
      try {
        if (entry == null) {
          closeQuietly(value); // not cached: another task of this partition held the entry
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

  /**
   * The value cached for ({@code run}, {@code partition}) on the task's engine, else a new one
   * made by {@code create} (and cached). Leases the engine as {@link ExecutorEngines#acquire}.
   */
  @SuppressWarnings("unchecked")
  public static <T extends AutoCloseable> Handle<T> acquire(long run, int partition,
      GstmSettings settings, Function<Engine, T> create) {
    Key key = new Key(run, partition);
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
        return new Handle<>(lease, (T) cached.value, cached);
      }
      if (cached != null) {
        synchronized (ENTRIES) {
          ENTRIES.remove(key, cached);
        }
        closeQuietly(cached.value);
      }
      T value = create.apply(lease.engine());
      if (key == null) {
        return new Handle<>(lease, value, null);
      }
      Entry fresh = new Entry(value, lease.engine());
      fresh.inUse = true;
      List<Entry> evicted = new ArrayList<>();
      synchronized (ENTRIES) {
        ENTRIES.put(key, fresh);
        Iterator<Map.Entry<Key, Entry>> it = ENTRIES.entrySet().iterator();
        while (ENTRIES.size() > MAX_ENTRIES && it.hasNext()) {
          Map.Entry<Key, Entry> e = it.next();
          if (!e.getValue().inUse) {
            evicted.add(e.getValue());
            it.remove();
          }
        }
      }
      evicted.forEach(e -> closeQuietly(e.value));
      return new Handle<>(lease, value, fresh);
    } catch (RuntimeException e) {
      lease.close();
      throw e;
    }
  }

  /** Closes the values of run {@code run} held by this JVM. */
  public static void release(long run) {
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
    closing.forEach(e -> closeQuietly(e.value));
  }

  /** Entries held now. */
  public static int size() {
    synchronized (ENTRIES) {
      return ENTRIES.size();
    }
  }

  private static void closeQuietly(AutoCloseable value) {
    try {
      value.close();
    } catch (Exception ex) {
      LOG.debug("closing a resident value", ex);
    }
  }
}
