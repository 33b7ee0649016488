package io.gstm.core.workload.ds;

import static io.gstm.core.workload.ds.DsState.NIL;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A structure read back from the store's contents, with the structural invariants checked on
 * the way: the queue a chain from the head to the tail; every hash-map list in its bucket and
 * strictly ascending; the tree a binary search tree, with every slot of an absent key clean;
 * every skip-list level strictly ascending and a subsequence of the level below. No node is
 * reached twice (a cycle or a node in two places).
 *
 * @param entries queue: node to value, head first (the dummy not included); hash map: key to
 *     node; tree: key to key (a node is its key's slot); skip list: key to its level count
 * @param nodes every node the structure holds (the queue's dummy included)
 * @param problems what breaks an invariant, empty when none
 */
public record DsDecoded(LinkedHashMap<Integer, Integer> entries, Set<Integer> nodes,
    List<String> problems) {

  private static final int MAX_PROBLEMS = 10;

  public static DsDecoded of(DsKind kind, int levels, int pool, long[][] state) {
    DsDecoded d = new DsDecoded(new LinkedHashMap<>(), new HashSet<>(), new ArrayList<>());
    switch (kind) {
      case QUEUE -> d.queue(pool, state);
      case HASHMAP -> d.hashMap(pool, state);
      case TREE -> d.tree(pool, state);
      case SKIPLIST -> d.skipList(levels, pool, state[0]);
      default -> throw new IllegalStateException(kind.toString());
    }
    return d;
  }

  /** Keys (or queue values) in structure order. */
  public List<Integer> contents(DsKind kind) {
    return new ArrayList<>(kind == DsKind.QUEUE ? entries.values() : entries.keySet());
  }

  private void problem(String p) {
    if (problems.size() < MAX_PROBLEMS) {
      problems.add(p);
    }
  }

  /** Adds a node; false (and a problem) if out of the pool or seen before. */
  private boolean visit(String what, long node, int pool) {
    if (node < 0 || node >= pool) {
      problem(what + ": node " + node + " is outside the pool 0.." + (pool - 1));
      return false;
    }
    if (!nodes.add((int) node)) {
      problem(what + ": node " + node + " is reached twice (a cycle, or in two places)");
      return false;
    }
    return true;
  }

  private void queue(int pool, long[][] s) {
    long head = s[0][0];
    long tail = s[0][1];
    if (!visit("queue head", head, pool)) {
      return;
    }
    long cur = head;
    while (s[1][(int) cur] != NIL) {
      long nxt = s[1][(int) cur];
      if (!visit("queue after node " + cur, nxt, pool)) {
        return;
      }
      entries.put((int) nxt, (int) s[2][(int) nxt]);
      cur = nxt;
    }
    if (cur != tail) {
      problem("queue: the chain from the head ends at node " + cur + ", the tail is " + tail);
    }
  }

  private void hashMap(int pool, long[][] s) {
    for (int b = 0; b < DsConfig.BUCKETS; b++) {
      long cur = s[0][b];
      long last = Long.MIN_VALUE;
      while (cur != NIL) {
        if (!visit("bucket " + b, cur, pool)) {
          break;
        }
        int key = (int) s[1][(int) cur];
        if ((key & (DsConfig.BUCKETS - 1)) != b || key < 0) {
          problem("bucket " + b + " holds key " + key + " (node " + cur + ")");
        }
        if (key <= last) {
          problem("bucket " + b + " is not strictly ascending: " + key + " after " + last);
        }
        if (entries.put(key, (int) cur) != null) {
          problem("key " + key + " is in the map twice");
        }
        last = key;
        cur = s[2][(int) cur];
      }
    }
  }

  private void tree(int pool, long[][] s) {
    List<long[]> stack = new ArrayList<>(); // node, exclusive lower and upper bounds
    if (s[0][0] != NIL) {
      stack.add(new long[] {s[0][0], Long.MIN_VALUE, Long.MAX_VALUE});
    }
    Map<Integer, Integer> found = new java.util.TreeMap<>();
    while (!stack.isEmpty()) {
      long[] top = stack.remove(stack.size() - 1);
      long k = top[0];
      if (!visit("tree", k, pool)) {
        continue;
      }
      if (k <= top[1] || k >= top[2]) {
        problem("tree: key " + k + " is outside its subtree's range (" + top[1] + ", " + top[2]
            + ")");
      }
      found.put((int) k, (int) k);
      long left = s[1][(int) (2 * k)];
      long right = s[1][(int) (2 * k + 1)];
      if (right != NIL) {
        stack.add(new long[] {right, k, top[2]});
      }
      if (left != NIL) {
        stack.add(new long[] {left, top[1], k});
      }
    }
    entries.putAll(found);
    for (int k = 0; k < pool; k++) {
      if (!nodes.contains(k) && (s[1][2 * k] != NIL || s[1][2 * k + 1] != NIL)) {
        problem("tree: node " + k + " is not in the tree but has children");
      }
    }
  }

  private void skipList(int levels, int pool, long[] next) {
    Set<Long> below = null;
    for (int l = 0; l < levels; l++) {
      Set<Long> here = new HashSet<>();
      long cur = pool; // the head
      long last = Long.MIN_VALUE;
      while (next[(int) (cur * levels + l)] != NIL) {
        long k = next[(int) (cur * levels + l)];
        if (k < 0 || k >= pool) {
          problem("skip list level " + l + ": key " + k + " is outside the pool");
          break;
        }
        if (k <= last) {
          problem("skip list level " + l + " is not strictly ascending: " + k + " after "
              + last);
          break;
        }
        if (below != null && !below.contains(k)) {
          problem("skip list: key " + k + " is at level " + l + " but not at level " + (l - 1));
        }
        if (l == 0) {
          visit("skip list", k, pool);
        }
        entries.merge((int) k, 1, Integer::sum);
        here.add(k);
        last = k;
        cur = k;
      }
      below = here;
    }
  }
}
