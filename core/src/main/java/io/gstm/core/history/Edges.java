package io.gstm.core.history;

/**
 * The precedence edges of a history as parallel arrays, each with a label (kind, lock, version)
 * so that a cycle can be explained; sized up front to the most edges the history can give.
 */
final class Edges {
  static final byte WR = 0;
  static final byte RW = 1;
  static final byte WW = 2;

  final int[] src;
  final int[] dst;
  final int[] lock;
  final int[] version;
  final byte[] kind;
  int count;

  Edges(int capacity) {
    src = new int[capacity];
    dst = new int[capacity];
    lock = new int[capacity];
    version = new int[capacity];
    kind = new byte[capacity];
  }

  /** Edge {@code from -> to}, of {@code kind}, over {@code version} of lock {@code l}. */
  void add(int from, int to, int l, int v, byte k) {
    int e = count++;
    src[e] = from;
    dst[e] = to;
    lock[e] = l;
    version[e] = v;
    kind[e] = k;
  }

  /** {@code -wr(lock L @V)->}: edge {@code e} as a cycle message spells it. */
  String label(int e) {
    String k = kind[e] == WR ? "wr" : kind[e] == RW ? "rw" : "ww";
    return "-" + k + "(lock " + lock[e] + " @" + Integer.toUnsignedString(version[e]) + ")->";
  }
}
