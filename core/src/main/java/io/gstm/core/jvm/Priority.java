package io.gstm.core.jvm;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Owners (priorities) and the urgent mode, the twin of {@code gstm::priority} in
 * {@code gstm/prstm.cuh}: a transaction that has lost {@code RunOptions.urgentAfter()} attempts
 * in a row turns urgent, draws a ticket and from then on outranks every ordinary transaction and every
 * younger urgent one; its reads become visible (see {@link JvmPrStmTx}). Ordinary owners keep the
 * paper's static rule among themselves: a lower thread id wins.
 */
final class Priority {
  /** Ordinary owners are {@code ORDINARY + thread}; urgent owners (tickets) lie below. */
  static final int ORDINARY = 1 << 29;
  /**
   * Longest wait of an urgent transaction for one lock (a second, as on the GPU): a safety net
   * against a holder that cannot finish, after which the attempt aborts as usual.
   */
  static final long MAX_WAIT_NANOS = 1_000_000_000L;

  private Priority() {}

  static int ordinary(int thread) {
    return ORDINARY + thread;
  }

  /** The next ticket of the batch: older tickets outrank younger ones. */
  static int urgent(AtomicLong tickets) {
    return (int) (tickets.getAndIncrement() % ORDINARY);
  }

  static boolean isUrgent(int owner) {
    return owner < ORDINARY;
  }
}
