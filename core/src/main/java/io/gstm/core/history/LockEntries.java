package io.gstm.core.history;

/**
 * Read or write entries of a history, flattened into parallel arrays (lock, version, index of
 * the transaction) for building the precedence graph.
 */
final class LockEntries {
  final int[] lock;
  final int[] version;
  final int[] tx;
  int count;

  LockEntries(long capacity) {
    lock = new int[Math.toIntExact(capacity)];
    version = new int[lock.length];
    tx = new int[lock.length];
  }

  void add(int l, int v, int t) {
    lock[count] = l;
    version[count] = v;
    tx[count] = t;
    count++;
  }
}
