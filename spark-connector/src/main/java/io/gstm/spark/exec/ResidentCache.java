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
      T value;
      try {
        // Made before the value of another engine is closed: it may read from it (a subgraph's
        // edges kept on the GPU that built them).
        value = create.apply(lease.engine());
      } finally {
        if (cached != null) {
          synchronized (ENTRIES) {
            ENTRIES.remove(key, cached);
          }
          closeQuietly(cached.value);
        }
      }
      if (key == null) {
        return new Handle<>(lease, value, null);
      }
      Entry fresh = new Entry(value, lease.engine());
      fresh.inUse = true;
      cache(key, fresh);
      return new Handle<>(lease, value, fresh);
    } catch (RuntimeException e) {
      lease.close();
      throw e;
    }
  }

  /**
   * Caches {@code value}, made on {@code engine} under a lease the caller holds, for ({@code
   * run}, {@code partition}) (closing a value cached there before): the next {@link #acquire} on
   * that engine finds it. A subgraph built on the GPU leaves its relaxer so.
   *
   * @return false, with {@code value} closed, when a task of that partition holds the entry
   */
  public static boolean put(long run, int partition, Engine engine, AutoCloseable value) {
    Entry old;
    synchronized (ENTRIES) {
      old = ENTRIES.get(new Key(run, partition));
    }
    if (old != null && old.inUse) {
      closeQuietly(value);
      return false;
    }
    cache(new Key(run, partition), new Entry(value, engine));
    if (old != null) {
      closeQuietly(old.value);
    }
    return true;
  }

  /** Puts {@code entry}, then closes the least recently used idle entries beyond the bound. */
  private static void cache(Key key, Entry entry) {
    List<Entry> evicted = new ArrayList<>();
    synchronized (ENTRIES) {
      ENTRIES.put(key, entry);
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
