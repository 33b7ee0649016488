package io.gstm.core.program;

import io.gstm.core.batch.TxBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * A batch of transaction programs: per transaction a type (which program of the set it runs)
 * and its parameters, taken by name from typed columns; and how the transactions map onto
 * threads (thread {@code i} of {@code blocks * threadsPerBlock} runs transactions
 * {@code i, i + T, ...} with priority {@code i}, lower wins). Made with {@link #builder}.
 */
public final class ProgramBatch {
  /** Threads per block when the builder is not told. */
  public static final int DEFAULT_THREADS_PER_BLOCK = 256;
  /** Transactions per thread the default grid aims at. */
  public static final int DEFAULT_TX_PER_THREAD = 8;

  private final ProgramSet programs;
  /** Null when every transaction runs {@link #uniformType}: made on first need. */
  private volatile int[] types;
  private final int txCount;
  private final Map<String, Column> columns;
  private final int threadsPerBlock;
  private final int blocks;
  /** Which programs the transactions run (index: type). */
  private final boolean[] used;
  /** The type every transaction runs, or -1 when they run several. */
  private final int uniformType;

  private ProgramBatch(ProgramSet programs, int[] types, Map<String, Column> columns,
      int threadsPerBlock, int blocks, TypeScan scan) {
    this.programs = programs;
    this.types = types;
    this.txCount = types != null ? types.length : scan.count();
    this.columns = columns;
    this.threadsPerBlock = threadsPerBlock;
    this.blocks = blocks;
    this.used = scan.used();
    this.uniformType = scan.uniformType();
  }

  public static Builder builder(ProgramSet programs) {
    return new Builder(programs);
  }

  public ProgramSet programs() {
    return programs;
  }

  public int txCount() {
    return txCount;
  }

  /** The type (program index) of transaction {@code t}. */
  public int type(int t) {
    if (uniformType >= 0) {
      Objects.checkIndex(t, txCount);
      return uniformType;
    }
    return types[t];
  }

  /** Every transaction's type (a copy). */
  public int[] types() {
    return typesView().clone();
  }

  /** Which programs of the set some transaction of the batch runs (index: type). */
  public boolean[] usedPrograms() {
    return used.clone();
  }

  /**
   * The type (program index) every transaction runs, or -1 when they run several: an engine
   * then need not send a type per transaction.
   */
  public int uniformType() {
    return uniformType;
  }

  /** Every transaction's type as stored (no copy: for the engines, not to be changed). */
  public int[] typesView() {
    int[] t = types;
    if (t == null) {
      synchronized (this) {
        if (types == null) {
          int[] all = new int[txCount];
          fill(all, uniformType);
          types = all;
        }
        t = types;
      }
    }
    return t;
  }

  private static void fill(int[] array, int value) {
    if (array.length >= 1 << 20) {
      Arrays.parallelSetAll(array, i -> value); // a batch of millions: idle cores
    } else {
      Arrays.fill(array, value);
    }
  }

  /** The column named {@code name}, or null. */
  public Column column(String name) {
    return columns.get(name);
  }

  public List<Column> columns() {
    return List.copyOf(columns.values());
  }

  public int threadsPerBlock() {
    return threadsPerBlock;
  }

  public int blocks() {
    return blocks;
  }

  public int threads() {
    return threadsPerBlock * blocks;
  }

  /** The same batch on another grid. */
  public ProgramBatch withGrid(int threadsPerBlock, int blocks) {
    TxBatch.checkThreads(threadsPerBlock, blocks);
    return new ProgramBatch(programs, types, columns, threadsPerBlock, blocks,
        new TypeScan(used, uniformType, txCount));
  }

  /**
   * The batch with its transactions stably sorted by descending ordering tag (the programs'
   * {@code tag}), so that earlier rounds run what others depend on (the JPDC paper's
   * pre-sorting baseline). Transaction {@code i} of the result is transaction
   * {@code order()[i]} of this one.
   */
  public Sorted presort() {
    int[] types = typesView();
    int n = types.length;
    int[] tags = programs.orderingTags();
    Integer[] order = new Integer[n];
    for (int t = 0; t < n; t++) {
      order[t] = t;
    }
    Arrays.sort(order, (a, b) -> Integer.compare(tags[types[b]], tags[types[a]]));
    int[] perm = new int[n];
    int[] sortedTypes = new int[n];
    for (int i = 0; i < n; i++) {
      perm[i] = order[i];
      sortedTypes[i] = types[order[i]];
    }
    Map<String, Column> cols = new LinkedHashMap<>();
    for (Column c : columns.values()) {
      cols.put(c.name(), c.permuted(perm));
    }
    return new Sorted(new ProgramBatch(programs, sortedTypes, cols, threadsPerBlock, blocks,
        new TypeScan(used, uniformType, txCount)), perm);
  }

  /** A pre-sorted batch and where each of its transactions came from. */
  public record Sorted(ProgramBatch batch, int[] order) {}

  /** Builds a {@link ProgramBatch}; {@link #build()} checks it. */
  public static final class Builder {
    private final ProgramSet programs;
    private int[] types;
    /** Set by {@link #all}: every transaction runs it, and no array is made unless asked. */
    private int allType = -1;
    private int allCount;
    private final Map<String, Column> columns = new LinkedHashMap<>();
    private int threadsPerBlock = DEFAULT_THREADS_PER_BLOCK;
    private int blocks = -1;

    private Builder(ProgramSet programs) {
      this.programs = Objects.requireNonNull(programs, "programs");
    }

    /** Type code (program index) per transaction (copied). */
    public Builder types(int[] types) {
      this.types = types.clone();
      allType = -1;
      return this;
    }

    /**
     * Type code per transaction, read in place: the batch keeps {@code types} itself, so it
     * must not change until the last run of the batch has returned (for batches of millions,
     * where a copy costs as much as running them).
     */
    public Builder wrapTypes(int[] types) {
      this.types = Objects.requireNonNull(types, "types");
      allType = -1;
      return this;
    }

    /** Program name per transaction. */
    public Builder types(String[] names) {
      int[] t = new int[names.length];
      Map<String, Integer> index = new LinkedHashMap<>();
      for (int i = 0; i < names.length; i++) {
        t[i] = index.computeIfAbsent(names[i], programs::type);
      }
      this.types = t;
      allType = -1;
      return this;
    }

    /** {@code n} transactions all running program {@code name}. */
    public Builder all(String name, int n) {
      allType = programs.type(name);
      allCount = n;
      types = null;
      return this;
    }

    public Builder column(Column column) {
      if (columns.put(column.name(), column) != null) {
        throw new IllegalArgumentException("columns: two columns are named '" + column.name()
            + "'");
      }
      return this;
    }

    public Builder int32(String name, int[] values) {
      return column(Column.ofInt32(name, values));
    }

    public Builder int64(String name, long[] values) {
      return column(Column.ofInt64(name, values));
    }

    /** An int32 column read in place ({@link Column#wrapInt32}). */
    public Builder wrapInt32(String name, int[] values) {
      return column(Column.wrapInt32(name, values));
    }

    /** An int64 column read in place ({@link Column#wrapInt64}). */
    public Builder wrapInt64(String name, long[] values) {
      return column(Column.wrapInt64(name, values));
    }

    public Builder float32(String name, float[] values) {
      return column(Column.ofFloat32(name, values));
    }

    public Builder float64(String name, double[] values) {
      return column(Column.ofFloat64(name, values));
    }

    /** The grid; by default 256 threads per block and about 8 transactions per thread. */
    public Builder grid(int threadsPerBlock, int blocks) {
      this.threadsPerBlock = threadsPerBlock;
      this.blocks = blocks;
      return this;
    }

    public ProgramBatch build() {
      if (types == null && allType < 0) {
        throw new IllegalArgumentException("types: a batch needs a type per transaction "
            + "(types(...) or all(...))");
      }
      int n = types != null ? types.length : allCount;
      if (n < 1) {
        throw new IllegalArgumentException("types: a batch needs at least 1 transaction");
      }
      TypeScan scan = types != null ? TypeScan.of(types, programs.size())
          : TypeScan.all(allType, n, programs.size());
      for (Column c : columns.values()) {
        if (c.length() != n) {
          throw new IllegalArgumentException("column '" + c.name() + "' has " + c.length()
              + " values, expected one per transaction (" + n + ")");
        }
      }
      int b = blocks;
      int tpb = threadsPerBlock;
      if (b < 0) {
        long perBlock = (long) tpb * DEFAULT_TX_PER_THREAD;
        b = (int) Math.max(1, (n + perBlock - 1) / perBlock);
      }
      TxBatch.checkThreads(tpb, b);
      // Every column a program of the set reads must be here with its type.
      for (int p = 0; p < programs.size(); p++) {
        CompiledProgram prog = programs.get(p);
        if (!scan.used()[p]) {
          continue;
        }
        List<String> names = prog.columnNames();
        List<ValueType> typesOf = prog.columnTypes();
        for (int s = 0; s < names.size(); s++) {
          Column c = columns.get(names.get(s));
          if (c == null) {
            throw new IllegalArgumentException("column '" + names.get(s) + "' is missing: "
                + "program '" + prog.name() + "' reads it (" + typesOf.get(s) + "); the batch "
                + "has " + new ArrayList<>(columns.keySet()));
          }
          if (c.type() != typesOf.get(s)) {
            throw new IllegalArgumentException("column '" + names.get(s) + "' holds " + c.type()
                + " but program '" + prog.name() + "' reads it as " + typesOf.get(s));
          }
        }
      }
      return new ProgramBatch(programs, types, new LinkedHashMap<>(columns), tpb, b, scan);
    }
  }

  /** What one pass over the types found: the programs used and the one type, if only one. */
  private record TypeScan(boolean[] used, int uniformType, int count) {
    /** Transactions from which the scan runs on the common pool. */
    private static final int PARALLEL = 1 << 20;
    private static final int SLICE = 1 << 18;

    /** Scans {@code types}, throwing for the first one (lowest index) that names no program. */
    static TypeScan of(int[] types, int programs) {
      int n = types.length;
      if (n < PARALLEL) {
        return slice(types, 0, n, programs);
      }
      int slices = (n + SLICE - 1) / SLICE;
      TypeScan[] parts = new TypeScan[slices];
      IllegalArgumentException[] bad = new IllegalArgumentException[slices];
      IntStream.range(0, slices).parallel().forEach(i -> {
        try {
          parts[i] = slice(types, i * SLICE, Math.min(n, (i + 1) * SLICE), programs);
        } catch (IllegalArgumentException e) {
          bad[i] = e;
        }
      });
      boolean[] used = new boolean[programs];
      for (int i = 0; i < slices; i++) {
        if (bad[i] != null) {
          throw bad[i];
        }
        for (int p = 0; p < programs; p++) {
          used[p] |= parts[i].used[p];
        }
      }
      return new TypeScan(used, uniform(used, types[0]), n);
    }

    /** {@code n} transactions of type {@code type}. */
    static TypeScan all(int type, int n, int programs) {
      boolean[] used = new boolean[programs];
      used[type] = true;
      return new TypeScan(used, type, n);
    }

    private static TypeScan slice(int[] types, int from, int to, int programs) {
      boolean[] used = new boolean[programs];
      for (int t = from; t < to; t++) {
        int type = types[t];
        if (type < 0 || type >= programs) {
          throw new IllegalArgumentException("types[" + t + "] = " + type + " names no "
              + "program: the set has type codes 0.." + (programs - 1));
        }
        used[type] = true;
      }
      return new TypeScan(used, uniform(used, types[from]), to - from);
    }

    private static int uniform(boolean[] used, int first) {
      int count = 0;
      for (boolean u : used) {
        count += u ? 1 : 0;
      }
      return count == 1 ? first : -1;
    }
  }
}
