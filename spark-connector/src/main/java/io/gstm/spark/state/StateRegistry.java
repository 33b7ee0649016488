package io.gstm.spark.state;

import io.gstm.spark.exec.ThisExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The partitions of every {@link TxState} held by this JVM (an executor, or the driver in local
 * mode), by state id and partition. Unlike a cache, nothing here is evicted: a partition lives
 * until its state is closed or the JVM ends. A partition found under another incarnation than
 * the driver expects (left by a task attempt whose result the driver did not take) is closed.
 */
final class StateRegistry {
  private record Key(long state, int partition) {}

  private static final Map<Key, PartitionStore> STORES = new ConcurrentHashMap<>();

  private StateRegistry() {}

  static void put(PartitionStore p) {
    PartitionStore old = STORES.put(new Key(p.stateId, p.partition), p);
    if (old != null && old != p) {
      old.close();
    }
  }

  /** The partition the driver placed here, or a StateLostException saying it is not here. */
  static PartitionStore get(long state, int partition, long incarnation, String name) {
    Key key = new Key(state, partition);
    PartitionStore p = STORES.get(key);
    if (p != null && p.incarnation != incarnation) {
      STORES.remove(key, p);
      p.close();
      p = null;
    }
    if (p == null || p.isClosed()) {
      throw new StateLostException("gstm state '" + name + "' partition " + partition
          + " is not held on executor " + ThisExecutor.id() + " (" + ThisExecutor.host() + ")",
          partition);
    }
    return p;
  }

  static void remove(long state, int partition) {
    PartitionStore p = STORES.remove(new Key(state, partition));
    if (p != null) {
      p.close();
    }
  }

  /** Closes every partition of {@code state} held here. */
  static int removeState(long state) {
    List<Key> mine = new ArrayList<>();
    for (Key k : STORES.keySet()) {
      if (k.state() == state) {
        mine.add(k);
      }
    }
    for (Key k : mine) {
      remove(k.state(), k.partition());
    }
    return mine.size();
  }

  /** Partitions of {@code state} held here. */
  static int count(long state) {
    int n = 0;
    for (Key k : STORES.keySet()) {
      n += k.state() == state ? 1 : 0;
    }
    return n;
  }
}
