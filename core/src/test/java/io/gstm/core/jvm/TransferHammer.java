package io.gstm.core.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * Threads hammering two words of a store with transfers between them (in both orders) and
 * read-only audits, each thread retrying until it commits. Every committed audit must have seen
 * the invariant total (a snapshot at one instant), and the final words must account for every
 * committed transfer. With more threads than cores, holders are preempted in mid-commit.
 */
final class TransferHammer {
  private TransferHammer() {}

  /** Runs {@code rounds} transactions on each of {@code threads} threads and checks. */
  static void run(JvmTxStore s, int threads, int rounds, IntFunction<JvmTx> txOfThread)
      throws InterruptedException {
    s.writeInt32(0, new int[] {1000, 1000, 0, 0});
    long[] moved = new long[threads];
    long[] badAudits = new long[threads];
    long[] audits = new long[threads];
    Thread[] ts = new Thread[threads];
    Throwable[] failures = new Throwable[threads];
    for (int i = 0; i < threads; i++) {
      int id = i;
      ts[i] = new Thread(() -> {
        try {
          JvmTx t = txOfThread.apply(id);
          SplittableRandom rnd = new SplittableRandom(id);
          for (int n = 0; n < rounds; n++) {
            boolean audit = rnd.nextInt(3) == 0;
            int from = rnd.nextInt(2);
            int amount = 1 + rnd.nextInt(3);
            while (true) {
              t.begin(Priority.ordinary(id));
              long a = t.read(0, from);
              long b = t.read(0, 1 - from);
              if (!audit) {
                t.write(0, from, a - amount);
                t.write(0, 1 - from, b + amount);
              }
              if (t.commit()) {
                if (audit) {
                  audits[id]++;
                  badAudits[id] += a + b == 2000 ? 0 : 1;
                } else {
                  moved[id] += from == 0 ? amount : -amount;
                }
                break;
              }
            }
          }
        } catch (Throwable e) {
          failures[id] = e;
        }
      });
      ts[i].start();
    }
    for (Thread t : ts) {
      t.join();
    }
    assertThat(failures).containsOnlyNulls();
    long net = Arrays.stream(moved).sum();
    int[] words = s.readInt32(0);
    assertThat(Arrays.stream(badAudits).sum()).isZero();
    assertThat(Arrays.stream(audits).sum()).isPositive();
    assertThat(words[0]).isEqualTo((int) (1000 - net));
    assertThat(words[1]).isEqualTo((int) (1000 + net));
    for (int l = 0; l < s.locks.length(); l++) {
      assertThat(LockWord.locked(s.locks.get(l)) || LockWord.preLocked(s.locks.get(l)))
          .as("lock %d left held", l).isFalse();
    }
  }
}
