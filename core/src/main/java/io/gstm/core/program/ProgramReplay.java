package io.gstm.core.program;

import io.gstm.core.batch.Outcome;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.TxContext;
import io.gstm.core.workload.Verdict;
import java.util.ArrayList;
import java.util.List;

/**
 * The exact verifier for any program batch: replays the committed transactions one at a time in
 * a serial order (the history checker's), from the store's contents before the batch, and
 * checks that each one commits again in that order with the same outputs, that every committed
 * transaction is in the order exactly once, and that the replay ends in the store's contents
 * after the batch. Transactions that did not commit must have changed nothing, which the final
 * comparison covers.
 *
 * <p>A {@code sum()} is one read-set entry for a whole range and is not recorded in the history:
 * a program that uses it (read-only, by the checker's rule) has no place the history fixes, so
 * its outputs are not compared; being read-only, it cannot change the final state.
 */
public final class ProgramReplay {
  private static final int MAX_PROBLEMS = 10;

  private ProgramReplay() {}

  /**
   * @param before the store's contents before the batch ({@link StoreContents#read})
   * @param after the store's contents after it
   * @param serialOrder committed transactions in an order equivalent to the batch
   */
  public static Verdict verify(ProgramResult result, StoreLayout layout, long[][] before,
      long[][] after, int[] serialOrder) {
    ProgramBatch batch = result.batch();
    int n = batch.txCount();
    List<String> problems = new ArrayList<>();
    boolean[] seen = new boolean[n];
    for (int t : serialOrder) {
      if (t < 0 || t >= n || seen[t]) {
        problems.add("serial order names transaction " + t + " twice or out of range");
        return new Verdict(false, problems);
      }
      seen[t] = true;
    }
    for (int t = 0; t < n; t++) {
      if ((result.outcome(t) == Outcome.COMMITTED) != seen[t] && problems.size() < MAX_PROBLEMS) {
        problems.add("transaction " + t + " is " + result.outcome(t) + " but "
            + (seen[t] ? "is" : "is not") + " in the serial order");
      }
    }
    ProgramBinding binding = ProgramBinding.bind(batch, layout, Algorithm.prStm());
    long[][] state = new long[before.length][];
    for (int r = 0; r < before.length; r++) {
      state[r] = before[r].clone();
    }
    int slots = Math.max(1, batch.programs().maxOutputs());
    long[] outputs = new long[slots * n];
    int[] codes = new int[n];
    Interpreter interpreter = new Interpreter(binding, outputs, codes);
    Sequential tx = new Sequential(state, layout);
    for (int t : serialOrder) {
      tx.begin();
      interpreter.run(tx, t);
      tx.commit();
      if (tx.semantic || tx.ended != null) {
        if (problems.size() < MAX_PROBLEMS) {
          problems.add("transaction " + t + " (" + program(batch, t) + ") committed, but run "
              + "alone in the serial order it " + (tx.semantic ? "meets a semantic conflict"
              : "ends " + tx.ended));
        }
        continue;
      }
      CompiledProgram p = batch.programs().get(batch.type(t));
      if (p.analysis().sums() > 0) {
        continue; // a range read is not in the history, so its place in the order is unknown
      }
      for (int o = 0; o < p.outputs().size(); o++) {
        long want = outputs[o * n + t];
        long got = result.outputs()[o * n + t];
        if (!StoreContents.same(p.outputs().get(o).type(), want, got)
            && problems.size() < MAX_PROBLEMS) {
          problems.add("transaction " + t + " (" + program(batch, t) + "): output '"
              + p.outputs().get(o).name() + "' is " + StoreContents.show(
                  p.outputs().get(o).type(), got) + ", the serial replay gives "
              + StoreContents.show(p.outputs().get(o).type(), want));
        }
      }
    }
    String diff = StoreContents.firstDifference(layout, state, after);
    if (diff != null) {
      problems.add("final state differs from the serial replay: " + diff);
    }
    return new Verdict(problems.isEmpty(), problems);
  }

  private static String program(ProgramBatch batch, int t) {
    return batch.programs().get(batch.type(t)).name();
  }

  /** One transaction at a time over plain arrays; writes buffered until commit. */
  private static final class Sequential implements TxContext {
    private final long[][] state;
    private final StoreLayout layout;
    private final List<long[]> writes = new ArrayList<>();
    boolean semantic;
    Outcome ended;

    Sequential(long[][] state, StoreLayout layout) {
      this.state = state;
      this.layout = layout;
    }

    void begin() {
      writes.clear();
      semantic = false;
      ended = null;
    }

    void commit() {
      if (!semantic && ended == null) {
        for (long[] w : writes) {
          state[(int) w[0]][(int) w[1]] = w[2];
        }
      }
    }

    @Override
    public long read(int region, int index) {
      for (int i = writes.size() - 1; i >= 0; i--) {
        long[] w = writes.get(i);
        if (w[0] == region && w[1] == index) {
          return w[2];
        }
      }
      return state[region][index];
    }

    @Override
    public void write(int region, int index, long bits) {
      long v = layout.region(region).type().wordBytes() == 4 ? (long) (int) bits : bits;
      writes.add(new long[] {region, index, v});
    }

    @Override
    public long readShared(int region, int index) {
      return state[region][index];
    }

    @Override
    public void semanticConflict() {
      semantic = true;
    }

    @Override
    public void end(Outcome outcome) {
      ended = outcome;
    }

    @Override
    public boolean live() {
      return !semantic && ended == null;
    }
  }
}
