package io.gstm.core.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Checks that a batch history of a lock-based STM (PR-STM) is conflict-serializable, without
 * trusting any of the engine's own code: it only looks at lock versions read and produced.
 *
 * <p>Because every committed write under lock L bumps L's version by exactly one, the versions of
 * L form a chain {@code init, init+1, ...}; each version names the transaction that produced it.
 * That lets the checker rebuild the full precedence graph (wr, rw and ww edges) from versions
 * alone and look for a cycle.
 *
 * <p>Histories of a GPU batch hold hundreds of thousands of transactions, so everything here is
 * iterative (no recursion, no stack overflow) and works on primitive arrays: per-lock sorted
 * writer arrays, CSR adjacency and Kahn's algorithm.
 */
public final class HistoryChecker {

  /** Violations kept verbatim; past this only a count is kept so reports stay readable. */
  private static final int MAX_VIOLATIONS = 20;

  /** Edges of a cycle spelled out; a longer cycle is elided in the middle of its message. */
  private static final int MAX_CYCLE_EDGES_SHOWN = 20;

  private HistoryChecker() {}

  /**
   * The outcome of a check.
   *
   * @param serializable whether the history is serializable; true exactly when there are no
   *     violations
   * @param violations human-readable descriptions naming transaction ids, locks and versions; at
   *     most 20 are kept (plus a found cycle), followed by one line counting the rest
   * @param serialOrder when serializable, the committed transaction ids in an order consistent
   *     with every precedence edge (a serial order the batch is equivalent to); else empty
   */
  public record Verdict(boolean serializable, List<String> violations, int[] serialOrder) {

    /**
     * Copies the list and rejects a verdict that contradicts itself.
     *
     * @param serializable whether the history is serializable
     * @param violations the violation messages, copied
     * @throws IllegalArgumentException if {@code serializable != violations.isEmpty()}
     * @throws NullPointerException if {@code violations} or an element is null
     */
    public Verdict {
      violations = List.copyOf(violations);
      serialOrder = serializable ? serialOrder.clone() : new int[0];
      if (serializable != violations.isEmpty()) {
        throw new IllegalArgumentException(
            "serializable must be true exactly when there are no violations");
      }
    }
  }

  /**
   * Checks a history.
   *
   * <p>Rules: every lock index is in range; per lock, the produced versions are exactly
   * {@code init+1 .. init+m} with no duplicate (lost update) and no gap; a transaction that read
   * and wrote a lock produced the version it read plus one; every read version is the initial one
   * or was produced by a committed transaction; and the precedence graph is acyclic.
   *
   * @param history the committed transactions of one batch
   * @return the verdict
   * @throws NullPointerException if {@code history} is null
   */
  public static Verdict check(History history) {
    Objects.requireNonNull(history, "history");
    Violations out = new Violations();
    int lockCount = history.lockCount();
    int[] init = new int[lockCount];
    for (int l = 0; l < lockCount; l++) {
      init[l] = history.initialVersion(l);
    }

    List<TxRecord> txs = history.committed();
    int n = txs.size();
    int[] ids = new int[n];
    long[][] readsOf = new long[n][];
    long[][] writesOf = new long[n][];
    long totalReads = 0;
    long totalWrites = 0;
    for (int i = 0; i < n; i++) {
      TxRecord tx = txs.get(i);
      ids[i] = tx.txId();
      // One accessor call each: the accessors copy, and the copies are reused below.
      readsOf[i] = tx.reads();
      writesOf[i] = tx.writes();
      totalReads += readsOf[i].length;
      totalWrites += writesOf[i].length;
    }
    checkDuplicateIds(ids, out);

    // Flatten the entries that are usable for graph building into parallel arrays (struct of
    // arrays), dropping out-of-range and duplicate ones after reporting them.
    LockEntries reads = new LockEntries(totalReads);
    LockEntries writes = new LockEntries(totalWrites);
    // Stamps (tx index + 1) avoid clearing per-lock scratch between transactions.
    int[] readStamp = new int[lockCount];
    int[] readSeen = new int[lockCount];
    int[] writeStamp = new int[lockCount];
    int[] writeSeen = new int[lockCount];
    for (int i = 0; i < n; i++) {
      final int id = ids[i];
      final int stamp = i + 1;
      for (long e : readsOf[i]) {
        final int l = TxRecord.lockOf(e);
        final int v = TxRecord.versionOf(e);
        if (outsideTable(out, id, "read", l, v, lockCount)) {
          continue;
        }
        if (readStamp[l] == stamp) {
          final int first = readSeen[l];
          if (first != v) {
            out.report(() -> "tx " + id + " read lock " + l + " at two different versions "
                + ver(first) + " and " + ver(v) + ", so it saw an inconsistent snapshot");
          }
          continue;
        }
        readStamp[l] = stamp;
        readSeen[l] = v;
        reads.add(l, v, i);
      }
      for (long e : writesOf[i]) {
        final int l = TxRecord.lockOf(e);
        final int w = TxRecord.versionOf(e);
        if (outsideTable(out, id, "wrote", l, w, lockCount)) {
          continue;
        }
        if (writeStamp[l] == stamp) {
          final int first = writeSeen[l];
          out.report(() -> "tx " + id + " has more than one write entry for lock " + l
              + " (versions " + ver(first) + " and " + ver(w)
              + "); a commit bumps each lock it holds exactly once");
          continue;
        }
        writeStamp[l] = stamp;
        writeSeen[l] = w;
        if (readStamp[l] == stamp && readSeen[l] != w - 1) {
          final int r = readSeen[l];
          out.report(() -> "tx " + id + " read version " + ver(r) + " of lock " + l
              + " but wrote version " + ver(w) + "; a write must produce the version read + 1 ("
              + ver(r + 1) + ")");
        }
        writes.add(l, w, i);
      }
    }
    // Let the per-tx copies be collected before the graph arrays are allocated.
    readsOf = null;
    writesOf = null;

    // Per-lock writers in CSR form, each lock's segment sorted by offset from the initial
    // version. Keys pack (offset << 32 | tx index): the signed offset in the high half sorts
    // correctly and wrap-around of the 32-bit version is absorbed by int subtraction.
    int wn = writes.count;
    int[] wStart = new int[lockCount + 1];
    for (int k = 0; k < wn; k++) {
      wStart[writes.lock[k] + 1]++;
    }
    for (int l = 0; l < lockCount; l++) {
      wStart[l + 1] += wStart[l];
    }
    long[] keys = new long[wn];
    int[] fill = readStamp; // scratch no longer needed; reuse to save a lock-table-sized array
    System.arraycopy(wStart, 0, fill, 0, lockCount);
    for (int k = 0; k < wn; k++) {
      int l = writes.lock[k];
      keys[fill[l]++] = ((long) (writes.version[k] - init[l]) << 32)
          | (writes.tx[k] & 0xffffffffL);
    }
    for (int l = 0; l < lockCount; l++) {
      if (wStart[l + 1] - wStart[l] > 1) {
        Arrays.sort(keys, wStart[l], wStart[l + 1]);
      }
    }
    checkVersionChains(keys, wStart, init, ids, out);

    // Precedence edges. Upper bound: two per read (wr, rw) and one per write (ww).
    int rn = reads.count;
    Edges edges = new Edges(Math.toIntExact(2L * rn + wn));
    for (int k = 0; k < rn; k++) {
      final int l = reads.lock[k];
      final int v = reads.version[k];
      final int t = reads.tx[k];
      int d = v - init[l];
      int s = wStart[l];
      int e = wStart[l + 1];
      if (d != 0) {
        int idx = find(keys, s, e, d);
        if (idx < 0) {
          final int id = ids[t];
          final int initial = init[l];
          out.report(() -> "tx " + id + " performed a read of version " + ver(v) + " of lock " + l
              + " that no committed transaction produced (initial version " + ver(initial)
              + ")");
        } else {
          int writer = (int) keys[idx];
          if (writer != t) {
            edges.add(writer, t, l, v, Edges.WR);
          }
        }
      }
      int next = find(keys, s, e, d + 1);
      if (next >= 0) {
        int overwriter = (int) keys[next];
        if (overwriter != t) {
          edges.add(t, overwriter, l, v, Edges.RW);
        }
      }
    }
    for (int l = 0; l < lockCount; l++) {
      for (int i = wStart[l]; i + 1 < wStart[l + 1]; i++) {
        int off = (int) (keys[i] >> 32);
        int nextOff = (int) (keys[i + 1] >> 32);
        int a = (int) keys[i];
        int b = (int) keys[i + 1];
        if (nextOff == off + 1 && a != b) {
          edges.add(a, b, l, init[l] + off, Edges.WW);
        }
      }
    }

    int[] order = findCycle(n, edges, ids, out);
    return new Verdict(out.isEmpty(), out.result(), order == null ? new int[0] : order);
  }

  /** Reports every transaction id that occurs more than once, since reports name txs by id. */
  private static void checkDuplicateIds(int[] ids, Violations out) {
    int[] sorted = ids.clone();
    Arrays.sort(sorted);
    for (int i = 0; i < sorted.length; ) {
      int j = i + 1;
      while (j < sorted.length && sorted[j] == sorted[i]) {
        j++;
      }
      if (j - i > 1) {
        final int id = sorted[i];
        final int times = j - i;
        out.report(() -> "tx id " + id + " appears " + times
            + " times; each committed transaction must appear once");
      }
      i = j;
    }
  }

  /**
   * Per lock, the distinct produced versions must be exactly init+1 .. init+m, and no version may
   * be produced twice: two writers of one version both overwrote the same predecessor, which is a
   * lost update.
   */
  private static void checkVersionChains(long[] keys, int[] wStart, int[] init, int[] ids,
      Violations out) {
    for (int lock = 0; lock < init.length; lock++) {
      final int l = lock;
      final int initial = init[l];
      int expected = 1;
      boolean havePrev = false;
      int prevOff = 0;
      int prevTx = 0;
      for (int i = wStart[l]; i < wStart[l + 1]; i++) {
        final int off = (int) (keys[i] >> 32);
        final int tx = (int) keys[i];
        if (havePrev && off == prevOff) {
          final int firstId = ids[prevTx];
          final int id = ids[tx];
          out.report(() -> "LOST UPDATE on lock " + l + ": tx " + firstId + " and tx " + id
              + " both produced version " + ver(initial + off) + ", i.e. both overwrote version "
              + ver(initial + off - 1));
          continue;
        }
        havePrev = true;
        prevOff = off;
        prevTx = tx;
        final int id = ids[tx];
        if (off < 1) {
          out.report(() -> "tx " + id + " produced version " + ver(initial + off) + " of lock "
              + l + ", which does not come after the initial version " + ver(initial));
          continue;
        }
        if (off != expected) {
          final int missingFrom = initial + expected;
          final int missingTo = initial + off - 1;
          out.report(() -> "version gap on lock " + l + ": tx " + id + " produced version "
              + ver(initial + off) + " but no committed transaction produced "
              + (missingFrom == missingTo ? "version " + ver(missingFrom)
                  : "versions " + ver(missingFrom) + " .. " + ver(missingTo))
              + " (initial version " + ver(initial) + ")");
        }
        expected = off + 1;
      }
    }
  }

  /** Index of the first writer in {@code keys[from, to)} with the given offset, or -1. */
  private static int find(long[] keys, int from, int to, int offset) {
    long target = (long) offset << 32; // smallest key with this offset (tx index 0)
    int lo = from;
    int hi = to;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (keys[mid] < target) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < to && (int) (keys[lo] >> 32) == offset ? lo : -1;
  }

  /**
   * Runs Kahn's algorithm; if some transactions cannot be ordered, walks back along predecessor
   * edges among them until a node repeats, which yields one cycle. Every unordered node has an
   * unordered predecessor (otherwise its in-degree would have dropped to zero), so the walk never
   * gets stuck, whereas successors may lead out of the cycle into a dead end.
   */
  private static int[] findCycle(int n, Edges edges, int[] ids, Violations out) {
    int en = edges.count;
    int[] eSrc = edges.src;
    int[] eDst = edges.dst;
    int[] outStart = new int[n + 1];
    int[] inStart = new int[n + 1];
    for (int e = 0; e < en; e++) {
      outStart[eSrc[e] + 1]++;
      inStart[eDst[e] + 1]++;
    }
    for (int v = 0; v < n; v++) {
      outStart[v + 1] += outStart[v];
      inStart[v + 1] += inStart[v];
    }
    int[] outEdge = new int[en];
    int[] inEdge = new int[en];
    int[] outFill = Arrays.copyOf(outStart, n);
    int[] inFill = Arrays.copyOf(inStart, n);
    for (int e = 0; e < en; e++) {
      outEdge[outFill[eSrc[e]]++] = e;
      inEdge[inFill[eDst[e]]++] = e;
    }

    int[] indeg = new int[n];
    for (int v = 0; v < n; v++) {
      indeg[v] = inStart[v + 1] - inStart[v];
    }
    int[] queue = new int[n];
    int head = 0;
    int tail = 0;
    for (int v = 0; v < n; v++) {
      if (indeg[v] == 0) {
        queue[tail++] = v;
      }
    }
    while (head < tail) {
      int v = queue[head++];
      for (int j = outStart[v]; j < outStart[v + 1]; j++) {
        int u = eDst[outEdge[j]];
        if (--indeg[u] == 0) {
          queue[tail++] = u;
        }
      }
    }
    if (tail == n) {
      int[] order = new int[n];
      for (int i = 0; i < n; i++) {
        order[i] = ids[queue[i]];
      }
      return order;
    }
    int unordered = n - tail;

    // A node is unordered exactly when its in-degree never reached zero.
    int start = 0;
    while (indeg[start] == 0) {
      start++;
    }
    int[] pos = new int[n];
    Arrays.fill(pos, -1);
    int[] path = new int[unordered + 1];
    int[] predEdge = new int[unordered + 1]; // predEdge[i]: edge path[i+1] -> path[i] (or wrap)
    int len = 0;
    int x = start;
    while (pos[x] < 0) {
      pos[x] = len;
      path[len] = x;
      int edge = -1;
      for (int j = inStart[x]; j < inStart[x + 1]; j++) {
        if (indeg[eSrc[inEdge[j]]] > 0) {
          edge = inEdge[j];
          break;
        }
      }
      predEdge[len] = edge; // never -1, see method comment
      len++;
      x = eSrc[edge];
    }
    // path[j] -> path[len-1] -> path[len-2] -> ... -> path[j+1] -> path[j]: following the
    // predecessor chain backwards gives the cycle in edge direction.
    int j = pos[x];
    int cycleLen = len - j;
    StringBuilder sb = new StringBuilder();
    sb.append("precedence graph has a cycle of ").append(cycleLen)
        .append(" transactions, so no serial order exists (").append(unordered)
        .append(" transactions cannot be ordered in total): tx ").append(ids[path[len - 1]]);
    for (int step = 0; step < cycleLen; step++) {
      int i = len - 1 - step; // current node path[i]; next is path[i-1], or path[len-1] at the end
      int edge = i > j ? predEdge[i - 1] : predEdge[len - 1];
      int nextNode = i > j ? path[i - 1] : path[len - 1];
      if (step < MAX_CYCLE_EDGES_SHOWN / 2 || step >= cycleLen - MAX_CYCLE_EDGES_SHOWN / 2) {
        sb.append(' ').append(edges.label(edge)).append(" tx ")
            .append(ids[nextNode]);
      } else if (step == MAX_CYCLE_EDGES_SHOWN / 2) {
        sb.append(" ... (").append(cycleLen - MAX_CYCLE_EDGES_SHOWN).append(" edges elided) ...");
      }
    }
    sb.append(" [wr: read the version the other produced; rw: read a version the other"
        + " overwrote; ww: overwrote the version the other produced]");
    out.reportAlways(sb.toString());
    return null;
  }

  /** Reports an entry whose lock lies outside the lock table; true when it does. */
  private static boolean outsideTable(Violations out, int id, String did, int l, int v,
      int lockCount) {
    if (l >= 0 && l < lockCount) {
      return false;
    }
    out.report(() -> "tx " + id + " " + did + " lock " + l + " (version " + ver(v)
        + "), outside the lock table [0, " + lockCount + ")");
    return true;
  }

  /** Versions are 32-bit counters that may wrap, so print them as the unsigned value. */
  private static String ver(int version) {
    return Integer.toUnsignedString(version);
  }

  /** Keeps the first few messages; building a dropped message is skipped via the supplier. */
  private static final class Violations {
    private final List<String> kept = new ArrayList<>();
    private String cycle;
    private long dropped;

    void report(Supplier<String> message) {
      if (kept.size() < MAX_VIOLATIONS) {
        kept.add(message.get());
      } else {
        dropped++;
      }
    }

    /** The cycle is the headline finding, so it is kept even when the cap is reached. */
    void reportAlways(String message) {
      cycle = message;
    }

    boolean isEmpty() {
      return kept.isEmpty() && cycle == null;
    }

    List<String> result() {
      List<String> all = new ArrayList<>(kept);
      if (cycle != null) {
        all.add(cycle);
      }
      if (dropped > 0) {
        all.add("... and " + dropped + " more violations not shown");
      }
      return all;
    }
  }
}
