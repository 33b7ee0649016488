package io.gstm.core.workload.ds;

import io.gstm.core.batch.Outcome;
import io.gstm.core.program.ProgramResult;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The exact verifier of a data-structure batch, independent of the programs: the structure read
 * back from the store (invariants, {@link DsDecoded}); every transaction committed or ended with
 * one of the structures' own abort codes where that code can apply; pool accounting (every node
 * the batch started with or a committed insert took is in the structure or was freed by a
 * committed dequeue or delete, exactly once); per-key and per-value balances that hold in any
 * order; and, given a serial order of the committed transactions, a replay on a plain Java
 * model (a deque, a map, a sorted set) whose outputs (found, inserted, dequeued value, freed
 * node) and final contents must equal the run's.
 */
public final class DsVerifier {
  private static final int MAX_PROBLEMS = 10;

  private DsVerifier() {}

  /**
   * @param after the store's contents after the batch
   * @param serialOrder committed transactions in an order equivalent to the run, or null
   * @return what is wrong, empty when nothing
   */
  public static List<String> check(DsBatch b, ProgramResult r, long[][] after,
      int[] serialOrder) {
    List<String> problems = new ArrayList<>();
    DsKind kind = b.cfg().kind();
    DsDecoded before = DsDecoded.of(kind, b.cfg().levels(), b.pool(), b.initial());
    DsDecoded end = DsDecoded.of(kind, b.cfg().levels(), b.pool(), after);
    before.problems().forEach(p -> add(problems, "initial state: " + p));
    end.problems().forEach(p -> add(problems, "final state: " + p));
    outcomes(b, r, problems);
    pool(b, r, before, end, problems);
    balances(b, r, before, end, problems);
    if (serialOrder != null) {
      replay(b, r, before, end, serialOrder, problems);
    }
    return problems;
  }

  private static void add(List<String> problems, String p) {
    if (problems.size() < MAX_PROBLEMS) {
      problems.add(p);
    }
  }

  private static boolean committed(ProgramResult r, int t) {
    return r.outcome(t) == Outcome.COMMITTED;
  }

  private static boolean ok(ProgramResult r, int t) {
    return committed(r, t) && r.outputLong(t, "ok") == 1;
  }

  private static String name(DsBatch b, int t) {
    return "transaction " + t + " (" + b.cfg().kind().operations()[b.op()[t]] + " "
        + (b.cfg().kind() == DsKind.QUEUE ? "" : "key " + b.key()[t]) + ")";
  }

  /** Committed, or a pool or walk abort where one can happen; never a fault or abandonment. */
  private static void outcomes(DsBatch b, ProgramResult r, List<String> problems) {
    DsKind kind = b.cfg().kind();
    for (int t = 0; t < b.txCount(); t++) {
      Outcome o = r.outcome(t);
      if (o == Outcome.COMMITTED) {
        continue;
      }
      boolean insert = b.op()[t] == 0;
      boolean poolCan = insert && (kind.keyedNodes() ? b.key()[t] >= b.pool()
          : b.node()[t] >= b.pool());
      // A tree whose depth bound fits its walk can never end one: that code would be a bug.
      boolean walkCan = kind == DsKind.SKIPLIST
          || kind == DsKind.TREE && b.cfg().treeDepthBound() > b.cfg().walkBound();
      int code = o == Outcome.USER_ABORT ? r.abortCode(t) : -1;
      boolean fine = code == DsPrograms.POOL_EXHAUSTED && poolCan
          || code == DsPrograms.WALK_BOUND && walkCan;
      if (!fine) {
        add(problems, name(b, t) + " ended " + o + (code >= 0 ? " code " + code : ""));
      }
    }
  }

  /** Nodes at the start plus nodes taken = nodes at the end plus nodes freed, each once. */
  private static void pool(DsBatch b, ProgramResult r, DsDecoded before, DsDecoded end,
      List<String> problems) {
    if (b.cfg().kind().keyedNodes()) {
      return; // a node is its key's slot: DsDecoded checks each is reached once
    }
    Set<Integer> expected = new HashSet<>(before.nodes());
    Set<Integer> freed = new HashSet<>();
    for (int t = 0; t < b.txCount(); t++) {
      if (!ok(r, t)) {
        continue;
      }
      if (b.op()[t] == 0 && !expected.add(b.node()[t])) {
        add(problems, name(b, t) + " took node " + b.node()[t] + ", which was already in use");
      }
      if (b.op()[t] == 1) {
        int f = (int) r.outputLong(t, "freed");
        if (!freed.add(f)) {
          add(problems, name(b, t) + " freed node " + f + " a second time");
        }
      }
    }
    Set<Integer> actual = new HashSet<>(end.nodes());
    for (int f : freed) {
      if (!actual.add(f)) {
        add(problems, "node " + f + " was freed but is still in the structure");
      }
    }
    if (!actual.equals(expected)) {
      Set<Integer> lost = new HashSet<>(expected);
      lost.removeAll(actual);
      Set<Integer> extra = new HashSet<>(actual);
      extra.removeAll(expected);
      add(problems, "pool: nodes lost " + first(lost) + ", nodes that appeared " + first(extra));
    }
  }

  private static List<Integer> first(Set<Integer> s) {
    return s.stream().sorted().limit(8).toList();
  }

  /** Order-free: per key, inserts minus deletes that took effect = presence after - before. */
  private static void balances(DsBatch b, ProgramResult r, DsDecoded before, DsDecoded end,
      List<String> problems) {
    DsKind kind = b.cfg().kind();
    if (kind == DsKind.QUEUE) {
      Map<Integer, Integer> count = new HashMap<>();
      before.entries().values().forEach(v -> count.merge(v, 1, Integer::sum));
      for (int t = 0; t < b.txCount(); t++) {
        if (ok(r, t)) {
          count.merge(b.op()[t] == 0 ? b.val()[t] : (int) r.outputLong(t, "val"),
              b.op()[t] == 0 ? 1 : -1, Integer::sum);
        }
      }
      end.entries().values().forEach(v -> count.merge(v, -1, Integer::sum));
      count.forEach((v, c) -> {
        if (c != 0) {
          add(problems, "value " + v + ": " + (c > 0 ? "lost" : "dequeued or present more "
              + "often than enqueued") + " (" + c + ")");
        }
      });
      return;
    }
    Map<Integer, Integer> delta = new HashMap<>();
    for (int t = 0; t < b.txCount(); t++) {
      if (ok(r, t) && b.op()[t] < 2 && !(kind == DsKind.TREE && b.op()[t] == 1)) {
        delta.merge(b.key()[t], b.op()[t] == 0 ? 1 : -1, Integer::sum);
      }
    }
    Set<Integer> keys = new HashSet<>(delta.keySet());
    keys.addAll(before.entries().keySet());
    keys.addAll(end.entries().keySet());
    for (int k : keys) {
      int want = (end.entries().containsKey(k) ? 1 : 0) - (before.entries().containsKey(k) ? 1
          : 0);
      if (delta.getOrDefault(k, 0) != want) {
        add(problems, "key " + k + ": inserts minus deletes that took effect = "
            + delta.getOrDefault(k, 0) + ", but its presence changed by " + want);
      }
    }
  }

  /** Replays the committed transactions in {@code order} on a plain model of the structure. */
  private static void replay(DsBatch b, ProgramResult r, DsDecoded before, DsDecoded end,
      int[] order, List<String> problems) {
    DsKind kind = b.cfg().kind();
    ArrayDeque<int[]> queue = new ArrayDeque<>(); // node, value
    int[] dummy = {-1}; // the head node, which holds no entry
    LinkedHashMap<Integer, Integer> map = new LinkedHashMap<>(before.entries());
    if (kind == DsKind.QUEUE) {
      before.entries().forEach((node, value) -> queue.add(new int[] {node, value}));
      Set<Integer> heads = new HashSet<>(before.nodes());
      heads.removeAll(before.entries().keySet());
      dummy[0] = heads.isEmpty() ? -1 : heads.iterator().next();
    }
    for (int t : order) {
      long[] want = new long[3]; // ok, val, freed
      want[2] = -1;
      boolean insert = b.op()[t] == 0;
      if (kind == DsKind.QUEUE) {
        if (insert) {
          queue.add(new int[] {b.node()[t], b.val()[t]});
          want[0] = 1;
        } else if (!queue.isEmpty()) {
          int[] first = queue.poll();
          want = new long[] {1, first[1], dummy[0]};
          dummy[0] = first[0];
        }
      } else {
        int k = b.key()[t];
        boolean present = map.containsKey(k);
        String op = kind.operations()[b.op()[t]];
        switch (op) {
          case "insert" -> {
            if (!present) {
              // The map holds what DsDecoded reads back: a node, a key, or a level count.
              int node = kind == DsKind.SKIPLIST ? b.height()[t] : kind.keyedNodes() ? k
                  : b.node()[t];
              if (kind.keyedNodes() ? k >= b.pool() : b.node()[t] >= b.pool()) {
                add(problems, name(b, t) + " committed, but the pool has no node for it");
              }
              map.put(k, node);
              want[0] = 1;
            }
          }
          case "delete" -> {
            if (present) {
              want[0] = 1;
              want[2] = map.remove(k);
            }
          }
          default -> want[0] = present ? 1 : 0;
        }
      }
      compare(b, r, t, "ok", want[0], problems);
      if (kind == DsKind.QUEUE && !insert) {
        compare(b, r, t, "val", want[1], problems);
        compare(b, r, t, "freed", want[2], problems);
      } else if (kind == DsKind.HASHMAP && b.op()[t] == 1) {
        compare(b, r, t, "freed", want[2], problems);
      }
    }
    if (kind == DsKind.QUEUE) {
      LinkedHashMap<Integer, Integer> model = new LinkedHashMap<>();
      queue.forEach(e -> model.put(e[0], e[1]));
      if (!model.equals(end.entries()) || !Objects.equals(new ArrayList<>(model.keySet()),
          new ArrayList<>(end.entries().keySet()))) {
        add(problems, "final queue " + shortList(end.entries()) + " differs from the serial "
            + "replay's " + shortList(model));
      }
    } else if (!new java.util.TreeMap<>(map).equals(new java.util.TreeMap<>(end.entries()))) {
      add(problems, "final " + kind.label() + " " + shortList(end.entries())
          + " differs from the serial replay's " + shortList(map));
    }
  }

  private static void compare(DsBatch b, ProgramResult r, int t, String output, long want,
      List<String> problems) {
    long got = r.outputLong(t, output);
    if (got != want) {
      add(problems, name(b, t) + ": output " + output + " is " + got + ", the serial replay "
          + "gives " + want);
    }
  }

  private static String shortList(Map<Integer, Integer> m) {
    List<String> items = m.entrySet().stream().limit(12).map(e -> e.getKey() + "=" + e.getValue())
        .toList();
    return items + (m.size() > 12 ? " ... (" + m.size() + ")" : "");
  }
}
