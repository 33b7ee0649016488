package io.gstm.core.workload.pc;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.TxBatch;
import java.util.ArrayList;
import java.util.List;

/**
 * The producer-consumer verifier, from the final store alone: no item is lost, duplicated or
 * invented. Items in the buffer (slots from head to tail) plus the items the committed TAKEs
 * recorded are exactly the items of the committed PUTs, each once; head counts the committed
 * TAKEs and tail the committed PUTs; a TAKE that did not commit recorded nothing. When every
 * transaction committed, every produced item was consumed exactly once and head = tail = N*k.
 *
 * <p>With a history, {@link #replay} goes further: run in the history checker's serial order,
 * a sequential bounded buffer gives every committed TAKE exactly the item it recorded (the buffer
 * is FIFO, so in particular each producer's items are taken in the order they were put), and no
 * committed PUT met a full buffer nor TAKE an empty one.
 *
 * <p>The store must have started as {@link ProducerConsumerConfig#initialise} leaves it (counters
 * 0, taken words {@link ProducerConsumerConfig#NOT_TAKEN}).
 */
public final class ProducerConsumerVerifier {
  private static final int MAX_REPORTED = 10;
  private static final byte PUT = 1;
  private static final byte CONSUMED = 2;
  private static final byte BUFFERED = 4;

  /**
   * @param ok whether every check passed
   * @param problems the first problems, in words
   * @param committedPuts PUTs that committed
   * @param committedTakes TAKEs that committed
   * @param inBuffer items left in the buffer (tail - head)
   * @param allCommitted whether every transaction committed
   * @param everyItemConsumedOnce whether all N*k items were put and consumed exactly once
   */
  public record Verdict(boolean ok, List<String> problems, int committedPuts, int committedTakes,
      int inBuffer, boolean allCommitted, boolean everyItemConsumedOnce) {
    @Override
    public String toString() {
      String counts = " (puts " + committedPuts + ", takes " + committedTakes + ", in buffer "
          + inBuffer + ", all committed " + allCommitted + ")";
      return (ok ? "OK" : "FAILED " + problems) + counts;
    }
  }

  private ProducerConsumerVerifier() {}

  /** {@link #verify(TxBatch, BatchResult, int, int, long[], int[], long[])} for a config. */
  public static Verdict verify(ProducerConsumerConfig cfg, TxBatch batch, BatchResult result,
      long[] slots, int[] counters, long[] taken) {
    return verify(batch, result, cfg.producers(), cfg.itemsPerProducer(), slots, counters, taken);
  }

  /**
   * Checks the final regions against the outcomes.
   *
   * @param producers N: valid items have producer 0..N-1
   * @param itemsPerProducer k: valid items have sequence number 0..k-1
   * @param slots the final slots region
   * @param counters the final counters region (head, tail)
   * @param taken the final taken region
   */
  public static Verdict verify(TxBatch batch, BatchResult result, int producers,
      int itemsPerProducer, long[] slots, int[] counters, long[] taken) {
    Problems out = new Problems();
    int n = batch.txCount();
    int[] types = batch.types();
    int[] c0 = batch.columns()[0];
    int[] c1 = batch.columns()[1];
    int capacity = ProducerConsumerWorkload.Param.CAPACITY.of(batch);
    int items = producers * itemsPerProducer;
    byte[] state = new byte[items];
    int pending = 0;
    int puts = 0;
    int takes = 0;
    boolean allCommitted = true;

    // Committed puts first: a take is checked against all of them.
    for (int t = 0; t < n; t++) {
      Outcome o = result.outcome(t);
      allCommitted &= o == Outcome.COMMITTED;
      if (o == Outcome.PENDING) {
        pending++;
      }
      if (!ProducerConsumerWorkload.Type.PUT.is(types[t]) || o != Outcome.COMMITTED) {
        continue;
      }
      puts++;
      long item = ProducerConsumerWorkload.item(c0[t], c1[t]);
      int idx = index(item, producers, itemsPerProducer);
      if (idx < 0) {
        out.add("put " + t + " committed item " + describe(item) + ", outside producers 0.."
            + (producers - 1) + " x seq 0.." + (itemsPerProducer - 1));
      } else if ((state[idx] & PUT) != 0) {
        out.add("item " + describe(item) + " was put by two committed puts (" + t + " and an "
            + "earlier one)");
      } else {
        state[idx] |= PUT;
      }
    }
    if (pending > 0) {
      out.add(pending + " transaction(s) never ran");
    }

    for (int t = 0; t < n; t++) {
      if (!ProducerConsumerWorkload.Type.TAKE.is(types[t])) {
        continue;
      }
      long item = taken[c1[t]];
      if (result.outcome(t) != Outcome.COMMITTED) {
        if (item != ProducerConsumerConfig.NOT_TAKEN) {
          out.add("take " + t + " ended " + result.outcome(t) + " but its taken word " + c1[t]
              + " holds " + describe(item));
        }
        continue;
      }
      takes++;
      int idx = index(item, producers, itemsPerProducer);
      if (idx < 0 || (state[idx] & PUT) == 0) {
        out.add("take " + t + " consumed " + describe(item) + ", which no committed put produced");
      } else if ((state[idx] & CONSUMED) != 0) {
        out.add("item " + describe(item) + " was consumed twice (take " + t + " and another)");
      } else {
        state[idx] |= CONSUMED;
      }
    }

    int head = counters[ProducerConsumerWorkload.HEAD];
    int tail = counters[ProducerConsumerWorkload.TAIL];
    if (head != takes) {
      out.add("head is " + head + " but " + takes + " take(s) committed");
    }
    if (tail != puts) {
      out.add("tail is " + tail + " but " + puts + " put(s) committed");
    }
    int inBuffer = tail - head;
    if (inBuffer < 0 || inBuffer > capacity) {
      out.add("tail - head = " + inBuffer + " is outside 0.." + capacity + " (the capacity)");
    } else {
      for (int i = 0; i < inBuffer; i++) {
        int slot = Integer.remainderUnsigned(head + i, capacity);
        long item = slots[slot];
        int idx = index(item, producers, itemsPerProducer);
        if (idx < 0 || (state[idx] & PUT) == 0) {
          out.add("slot " + slot + " (buffered) holds " + describe(item)
              + ", which no committed put produced");
        } else if ((state[idx] & (CONSUMED | BUFFERED)) != 0) {
          out.add("slot " + slot + " holds " + describe(item) + ", which is also "
              + ((state[idx] & CONSUMED) != 0 ? "consumed" : "in another slot"));
        } else {
          state[idx] |= BUFFERED;
        }
      }
    }

    int lost = 0;
    boolean everyOnce = true;
    for (int idx = 0; idx < items; idx++) {
      everyOnce &= state[idx] == (PUT | CONSUMED);
      if (state[idx] == PUT) {
        if (lost++ < MAX_REPORTED) {
          out.add("item " + describe(ProducerConsumerWorkload.item(idx / itemsPerProducer,
              idx % itemsPerProducer)) + " was put by a committed put but is neither consumed "
              + "nor in the buffer (lost)");
        }
      }
    }
    if (lost > MAX_REPORTED) {
      out.add("... " + (lost - MAX_REPORTED) + " more items lost");
    }
    if (allCommitted && !everyOnce) {
      out.add("every transaction committed, yet not every produced item was consumed exactly "
          + "once (head " + head + ", tail " + tail + ", expected both " + items + ")");
    }
    return new Verdict(out.isEmpty(), out.list(), puts, takes, inBuffer, allCommitted, everyOnce);
  }

  /**
   * Replays the committed transactions in {@code serialOrder} (the history checker's) through a
   * sequential bounded buffer and checks that every committed PUT found room and every committed
   * TAKE found an item, the very item it recorded in {@code taken}. (A workload
   * {@link io.gstm.core.workload.Verdict}: this class's own {@link Verdict} is the verifier's.)
   */
  public static io.gstm.core.workload.Verdict replay(TxBatch batch, long[] taken,
      int[] serialOrder) {
    Problems out = new Problems();
    int capacity = ProducerConsumerWorkload.Param.CAPACITY.of(batch);
    long[] ring = new long[capacity];
    long head = 0;
    long tail = 0;
    int[] c0 = batch.columns()[0];
    int[] c1 = batch.columns()[1];
    for (int t : serialOrder) {
      if (ProducerConsumerWorkload.Type.PUT.is(batch.types()[t])) {
        if (tail - head >= capacity) {
          out.add("put " + t + " committed into a full buffer at its serial position");
          continue;
        }
        ring[(int) (tail++ % capacity)] = ProducerConsumerWorkload.item(c0[t], c1[t]);
      } else {
        if (tail == head) {
          out.add("take " + t + " committed from an empty buffer at its serial position");
          continue;
        }
        long expected = ring[(int) (head++ % capacity)];
        if (taken[c1[t]] != expected) {
          out.add("take " + t + " recorded " + describe(taken[c1[t]]) + " but the buffer's "
              + "front at its serial position was " + describe(expected));
        }
      }
    }
    return new io.gstm.core.workload.Verdict(out.isEmpty(), out.list());
  }

  /** Dense index producer * k + seq, or -1 outside producers x k. */
  private static int index(long item, int producers, int itemsPerProducer) {
    long p = item >>> 32;
    long s = item & 0xffffffffL;
    if (p >= producers || s >= itemsPerProducer) {
      return -1;
    }
    return (int) p * itemsPerProducer + (int) s;
  }

  private static String describe(long item) {
    return item == ProducerConsumerConfig.NOT_TAKEN ? "nothing (NOT_TAKEN)"
        : "(producer " + ProducerConsumerWorkload.producerOf(item) + ", seq "
            + ProducerConsumerWorkload.seqOf(item) + ")";
  }

  /** The first problems, then a count. */
  private static final class Problems {
    private final List<String> list = new ArrayList<>();
    private int more;

    void add(String p) {
      if (list.size() < MAX_REPORTED * 2) {
        list.add(p);
      } else {
        more++;
      }
    }

    boolean isEmpty() {
      return list.isEmpty();
    }

    List<String> list() {
      List<String> l = new ArrayList<>(list);
      if (more > 0) {
        l.add("... " + more + " more problems");
      }
      return List.copyOf(l);
    }
  }
}
