package io.gstm.core.program;

/**
 * What {@link ProgramCompiler} sums over the code compiled so far, for a program's {@link
 * Analysis}: one path (a branch adds its larger side, a loop its body times its trips), each
 * count saturating far below overflow.
 */
final class PathCounts {
  long reads;
  long lockEntries;
  long rowLockEntries;
  long writeEntries;
  long sums;
  long steps;

  void add(PathCounts o) {
    reads = sat(reads + o.reads);
    lockEntries = sat(lockEntries + o.lockEntries);
    rowLockEntries = sat(rowLockEntries + o.rowLockEntries);
    writeEntries = sat(writeEntries + o.writeEntries);
    sums = sat(sums + o.sums);
    steps = sat(steps + o.steps);
  }

  void addMax(PathCounts a, PathCounts b) {
    reads = sat(reads + Math.max(a.reads, b.reads));
    lockEntries = sat(lockEntries + Math.max(a.lockEntries, b.lockEntries));
    rowLockEntries = sat(rowLockEntries + Math.max(a.rowLockEntries, b.rowLockEntries));
    writeEntries = sat(writeEntries + Math.max(a.writeEntries, b.writeEntries));
    sums = sat(sums + Math.max(a.sums, b.sums));
    steps = sat(steps + Math.max(a.steps, b.steps));
  }

  void addTimes(PathCounts o, long times) {
    reads = sat(reads + mul(o.reads, times));
    lockEntries = sat(lockEntries + mul(o.lockEntries, times));
    rowLockEntries = sat(rowLockEntries + mul(o.rowLockEntries, times));
    writeEntries = sat(writeEntries + mul(o.writeEntries, times));
    sums = sat(sums + mul(o.sums, times));
    steps = sat(steps + mul(o.steps, times));
  }

  private static long mul(long a, long b) {
    return a != 0 && b > Long.MAX_VALUE / 4 / a ? Long.MAX_VALUE / 4 : a * b;
  }

  private static long sat(long v) {
    return Math.min(v, Long.MAX_VALUE / 4);
  }
}
