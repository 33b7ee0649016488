package io.gstm.core.workload.ds;

import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.Shuffles;
import java.util.Arrays;
import java.util.SplittableRandom;

/** The store layout of each structure and its initial contents (see {@link DsPrograms}). */
public final class DsState {
  public static final int NIL = -1;

  private DsState() {}

  /** One lock per word: the structures' conflicts are exactly the words they share. */
  public static StoreLayout layout(DsConfig cfg, int pool) {
    return switch (cfg.kind()) {
      case QUEUE -> StoreLayout.of(int32("ends", 2), int32("next", pool), int32("value", pool));
      case HASHMAP -> StoreLayout.of(int32("buckets", DsConfig.BUCKETS), int32("keys", pool),
          int32("next", pool));
      case TREE -> StoreLayout.of(int32("root", 1), int32("child", 2L * pool));
      case SKIPLIST -> StoreLayout.of(int32("next", (pool + 1L) * cfg.levels()));
    };
  }

  private static RegionSpec int32(String name, long words) {
    if (words > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("pool: region '" + name + "' would hold " + words
          + " words, more than a region's " + Integer.MAX_VALUE);
    }
    return new RegionSpec(name, RegionType.INT32, (int) words, 1);
  }

  /** The initial keys of the tree and the skip list: spread evenly over the key range. */
  static int[] spreadKeys(int count, int keyRange) {
    int[] keys = new int[count];
    for (int i = 0; i < count; i++) {
      keys[i] = (int) ((i + 1L) * keyRange / (count + 1L));
    }
    return keys;
  }

  /** The smallest pool that holds the initial contents. */
  static long minimumPool(DsKind kind, int keyRange, int initialEntries) {
    return switch (kind) {
      case QUEUE -> initialEntries + 1L; // and the dummy at the head
      case HASHMAP -> Math.max(1, initialEntries);
      case TREE, SKIPLIST -> initialEntries == 0 ? 1
          : (long) initialEntries * keyRange / (initialEntries + 1L) + 1; // the last key + 1
    };
  }

  /** Initial contents, one array per region (register bits, as {@code StoreContents}). */
  public static long[][] initial(DsConfig cfg, int pool, SplittableRandom rnd) {
    int n0 = cfg.initialEntries();
    switch (cfg.kind()) {
      case QUEUE -> {
        long[] next = filled(pool, NIL);
        long[] value = new long[pool];
        for (int i = 0; i < n0; i++) {
          next[i] = i + 1;
          value[i + 1] = i;
        }
        return new long[][] {{0, n0}, next, value};
      }
      case HASHMAP -> {
        int[] keys = distinctKeys(n0, cfg.keyRange(), rnd);
        Arrays.sort(keys);
        long[] buckets = filled(DsConfig.BUCKETS, NIL);
        long[] keyWords = new long[pool];
        long[] next = filled(pool, NIL);
        // Descending, each key pushed at its bucket's head: every list ends up ascending.
        for (int i = n0 - 1; i >= 0; i--) {
          int b = keys[i] & (DsConfig.BUCKETS - 1);
          keyWords[i] = keys[i];
          next[i] = buckets[b];
          buckets[b] = i;
        }
        return new long[][] {buckets, keyWords, next};
      }
      case TREE -> {
        int[] keys = spreadKeys(n0, cfg.keyRange());
        long[] child = filled(2 * pool, NIL);
        long root = balanced(keys, 0, n0, child);
        return new long[][] {{root}, child};
      }
      case SKIPLIST -> {
        int levels = cfg.levels();
        int[] keys = spreadKeys(n0, cfg.keyRange());
        long[] next = filled((pool + 1) * levels, NIL);
        int[] last = new int[levels];
        Arrays.fill(last, pool); // the head
        for (int key : keys) {
          int h = DsBatch.drawHeight(rnd, levels, cfg.skipBranching());
          for (int l = 0; l < h; l++) {
            next[last[l] * levels + l] = key;
            last[l] = key;
          }
        }
        return new long[][] {next};
      }
      default -> throw new IllegalStateException(cfg.kind().toString());
    }
  }

  /** Links sorted keys[from..to) as a balanced subtree; returns its root (or NIL). */
  private static long balanced(int[] keys, int from, int to, long[] child) {
    if (from >= to) {
      return NIL;
    }
    int mid = (from + to) >>> 1;
    int k = keys[mid];
    child[2 * k] = balanced(keys, from, mid, child);
    child[2 * k + 1] = balanced(keys, mid + 1, to, child);
    return k;
  }

  private static int[] distinctKeys(int count, int keyRange, SplittableRandom rnd) {
    int[] all = Shuffles.identity(keyRange);
    for (int i = 0; i < count; i++) {
      Shuffles.draw(all, i, rnd);
    }
    return Arrays.copyOf(all, count);
  }

  private static long[] filled(int n, long v) {
    long[] a = new long[n];
    Arrays.fill(a, v);
    return a;
  }
}
