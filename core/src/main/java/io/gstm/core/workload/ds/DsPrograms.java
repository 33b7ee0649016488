package io.gstm.core.workload.ds;

import io.gstm.core.program.ProgramSet;

/**
 * The data structures as transaction programs, in text (generated for a config: the walk bounds
 * and the skip list's levels are constants of the code). All regions are int32, so CSMV stores
 * run them too; NIL is -1.
 *
 * <ul>
 *   <li>queue: {@code ends[0]} head (a dummy node), {@code ends[1]} tail; {@code next[n]},
 *       {@code value[n]} per pool node. A dequeue frees the old dummy (output {@code freed}).
 *   <li>hash map: {@code buckets[b]} heads 128 lists sorted by key; {@code keys[n]},
 *       {@code next[n]} per pool node; a delete frees the node it unlinks.
 *   <li>tree: node {@code k} holds key {@code k} (one slot per key, so a step reads one word, not
 *       a key and a child): {@code child[2k]} left, {@code child[2k + 1]} right, {@code root[0]}.
 *   <li>skip list: node {@code k} holds key {@code k}; {@code next[k * L + l]} its successor at
 *       level {@code l}; the last slot is the head.
 * </ul>
 *
 * <p>Every program first spins {@code work} iterations of local work (low contention: before its
 * first read, so it spaces the transactions out without widening their conflict window) when
 * the config asks for it; output {@code spin} keeps that work from being optimised away.
 */
public final class DsPrograms {
  /** Abort code: the node the insert needs lies past the pool. */
  public static final int POOL_EXHAUSTED = 1;
  /** Abort code: the walk would outgrow the transaction's words (see {@link DsConfig}). */
  public static final int WALK_BOUND = 2;

  private DsPrograms() {}

  public static ProgramSet set(DsConfig cfg) {
    return ProgramSet.parse(text(cfg));
  }

  public static String text(DsConfig cfg) {
    String text = switch (cfg.kind()) {
      case QUEUE -> QUEUE;
      case HASHMAP -> hashMap(cfg.hashChainBound());
      case TREE -> TREE.replace("{D}", Integer.toString(cfg.walkBound()));
      case SKIPLIST -> skipList(cfg.levels(), cfg.walkBound());
    };
    String param = cfg.maxWork() == 0 ? "" : ", work: int32";
    String work = cfg.maxWork() == 0 ? "" : "  for w in 0 .. work max " + cfg.maxWork()
        + " { spin = wrapping_add(wrapping_mul(spin, 31), w); }  // local work\n";
    return text.replace("{WORK_PARAM}", param).replace("{WORK}\n", work)
        .replace("({WP})", "(" + (param.isEmpty() ? "" : param.substring(2)) + ")");
  }

  private static final String QUEUE = """
      program enqueue(val: int32, node: int32{WORK_PARAM})
          regions ends: int32, next: int32, value: int32
          outputs ok: int32, spin: int32
          tag 1
      {
      {WORK}
        if (node < 0 || node >= len(next)) { abort(1); }  // the pool is exhausted
        let tail = ends[1];
        value[node] = val;
        next[node] = -1;
        next[tail] = node;
        ends[1] = node;
        ok = 1;
      }

      program dequeue({WP})
          regions ends: int32, next: int32, value: int32
          outputs ok: int32, val: int32, freed: int32, spin: int32
      {
      {WORK}
        freed = -1;
        let head = ends[0];
        let first = next[head];
        if (first < 0) { return; }  // empty
        val = value[first];
        ends[0] = first;            // first becomes the dummy
        freed = head;
        ok = 1;
      }
      """;

  /** The walk along bucket {@code key & 127}: prev, cur and hit as the operations need them. */
  private static String hashWalk(int chain) {
    return """
          let b = key & 127;
          var prev = -1;
          var cur = buckets[b];
          var going = true;
          var hit = false;
          for step in 0 .. {C} {
            if (going) {
              if (cur < 0) {
                going = false;
              } else {
                let k = keys[cur];
                if (k >= key) {
                  going = false;
                  hit = k == key;
                } else {
                  prev = cur;
                  cur = next[cur];
                }
              }
            }
          }
          if (going && cur >= 0) { abort(2); }  // longer than the key range allows
        """.replace("{C}", Integer.toString(chain));
  }

  private static String hashMap(int chain) {
    String walk = hashWalk(chain);
    return """
        program insert(key: int32, node: int32{WORK_PARAM})
            regions buckets: int32, keys: int32, next: int32
            outputs ok: int32, spin: int32
            tag 1
        {
        {WORK}
        {WALK}
          if (hit) { return; }
          if (node < 0 || node >= len(keys)) { abort(1); }  // the pool is exhausted
          keys[node] = key;
          next[node] = cur;
          if (prev < 0) { buckets[b] = node; } else { next[prev] = node; }
          ok = 1;
        }

        program delete(key: int32{WORK_PARAM})
            regions buckets: int32, keys: int32, next: int32
            outputs ok: int32, freed: int32, spin: int32
        {
        {WORK}
          freed = -1;
        {WALK}
          if (!hit) { return; }
          let after = next[cur];
          if (prev < 0) { buckets[b] = after; } else { next[prev] = after; }
          freed = cur;
          ok = 1;
        }

        program lookup(key: int32{WORK_PARAM})
            regions buckets: int32, keys: int32, next: int32
            outputs ok: int32, spin: int32
        {
        {WORK}
        {WALK}
          if (hit) { ok = 1; }
        }
        """.replace("{WALK}\n", walk);
  }

  private static final String TREE_WALK = """
        let r = root[0];
        var cur = r;
        var slot = -1;
        var going = r >= 0;
        for step in 0 .. {D} {
          if (going) {
            if (cur == key) {
              going = false;
            } else {
              var s = cur * 2;
              if (key > cur) { s = s + 1; }
              let c = child[s];
              if (c < 0) {
                slot = s;
                going = false;
              } else {
                cur = c;
              }
            }
          }
        }
        if (going) { abort(2); }  // deeper than a transaction's words allow
      """;

  private static final String TREE = """
      program insert(key: int32{WORK_PARAM})
          regions root: int32, child: int32
          outputs ok: int32, spin: int32
          tag 1
      {
      {WORK}
        if (key < 0 || key >= len(child) / 2) { abort(1); }  // no node slot for this key
      {WALK}
        if (r < 0) {
          root[0] = key;
          ok = 1;
          return;
        }
        if (slot < 0) { return; }  // already there
        child[slot] = key;
        ok = 1;
      }

      program lookup(key: int32{WORK_PARAM})
          regions root: int32, child: int32
          outputs ok: int32, spin: int32
      {
      {WORK}
      {WALK}
        if (r >= 0 && slot < 0) { ok = 1; }
      }
      """.replace("{WALK}\n", TREE_WALK);

  /** The walk from the head: p{l}/s{l}, the last node before key and its successor at level l. */
  private static String skipWalk(int levels, int steps) {
    StringBuilder b = new StringBuilder();
    b.append("  let head = len(next) / ").append(levels).append(" - 1;\n");
    b.append("  var cur = head;\n");
    b.append("  var lvl = ").append(levels - 1).append(";\n");
    for (int l = 0; l < levels; l++) {
      b.append("  var p").append(l).append(" = head;\n");
      b.append("  var s").append(l).append(" = -1;\n");
    }
    b.append("  var going = true;\n");
    b.append("  for step in 0 .. ").append(steps).append(" {\n");
    b.append("    if (going) {\n");
    b.append("      let nxt = next[cur * ").append(levels).append(" + lvl];\n");
    b.append("      if (nxt >= 0 && nxt < key) {\n");
    b.append("        cur = nxt;\n");
    b.append("      } else {\n");
    for (int l = 0; l < levels; l++) {
      b.append("        if (lvl == ").append(l).append(") { p").append(l).append(" = cur; s")
          .append(l).append(" = nxt; }\n");
    }
    b.append("        if (lvl == 0) { going = false; }\n");
    b.append("        lvl = lvl - 1;\n");
    b.append("      }\n");
    b.append("    }\n");
    b.append("  }\n");
    b.append("  if (going) { abort(2); }  // longer than a transaction's words allow\n");
    return b.toString();
  }

  private static String skipList(int levels, int steps) {
    String walk = skipWalk(levels, steps);
    StringBuilder link = new StringBuilder();
    StringBuilder unlink = new StringBuilder();
    for (int l = 0; l < levels; l++) {
      String at = " * " + levels + " + " + l + "]";
      link.append("  if (height > ").append(l).append(") {\n")
          .append("    next[key").append(at).append(" = s").append(l).append(";\n")
          .append("    next[p").append(l).append(at).append(" = key;\n")
          .append("  }\n");
      unlink.append("  if (s").append(l).append(" == key) { next[p").append(l).append(at)
          .append(" = next[key").append(at).append("; }\n");
    }
    return """
        program insert(key: int32, height: int32{WORK_PARAM})
            regions next: int32
            outputs ok: int32, spin: int32
            tag 1
        {
        {WORK}
          if (key < 0 || key >= len(next) / {L} - 1) { abort(1); }  // no node slot for this key
        {WALK}
          if (s0 == key) { return; }  // already there
        {LINK}
          ok = 1;
        }

        program delete(key: int32{WORK_PARAM})
            regions next: int32
            outputs ok: int32, spin: int32
        {
        {WORK}
        {WALK}
          if (s0 != key) { return; }
        {UNLINK}
          ok = 1;
        }

        program search(key: int32{WORK_PARAM})
            regions next: int32
            outputs ok: int32, spin: int32
        {
        {WORK}
        {WALK}
          if (s0 == key) { ok = 1; }
        }
        """.replace("{WALK}\n", walk).replace("{LINK}\n", link.toString())
        .replace("{UNLINK}\n", unlink.toString()).replace("{L}", Integer.toString(levels));
  }
}
