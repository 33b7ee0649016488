package io.gstm.core.program;

import io.gstm.core.store.Algorithm;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.CsmvChecks;
import java.util.List;

/**
 * A program batch bound to a store: each program's regions resolved by name to the store's
 * regions (types checked), each program's parameter slots to the batch's columns, and the set
 * capacity chosen from the programs' bounds. Every check happens here, before anything runs,
 * and a failure names the program, the region or column, and the limit. Both engines run from
 * a binding.
 */
public final class ProgramBinding {
  /** Read-set slots of a CSMV update transaction. */
  public static final int CSMV_MAX_READS = 1024;
  /**
   * PR-STM set capacities the program kernels are built for: the built-in kernels' 2..16, and
   * 32 and 64 for programs that walk linked structures (a skip list of 5,000 entries).
   */
  public static final int[] CAPACITIES = {2, 4, 8, 16, 32, 64};

  /** The smallest program capacity that holds {@code entries} set entries. */
  public static int capacityFor(long entries) {
    for (int c : CAPACITIES) {
      if (c >= entries) {
        return c;
      }
    }
    throw new IllegalArgumentException("a transaction with " + entries + " set entries "
        + "exceeds the largest set capacity " + CAPACITIES[CAPACITIES.length - 1]);
  }

  private final ProgramBatch batch;
  private final StoreLayout layout;
  private final List<Column> columns;
  private final Bound[] bound;
  private final int capacity;
  private final int csmvReadCapacity;

  /** One program's resolution against the store and the batch. */
  public static final class Bound {
    final CompiledProgram program;
    /** Store region of each program region (all 0 for a program no transaction runs). */
    final int[] regions;
    /** Length of each program region in the store. */
    final int[] regionLengths;
    /** Batch column (index into {@link #columns()}) of each parameter slot, or -1. */
    final int[] slotColumns;
    /** Per slot, the column's 32-bit or 64-bit values (one of the two is null). */
    final int[][] slotInts;
    final long[][] slotLongs;
    /** First slot and length of each parameter (length 0 for scalars). */
    final int[] paramFirst;
    final int[] paramLength;

    Bound(CompiledProgram program, int[] regions, int[] regionLengths, int[] slotColumns,
        List<Column> columns) {
      this.program = program;
      this.regions = regions;
      this.regionLengths = regionLengths;
      this.slotColumns = slotColumns;
      this.slotInts = new int[slotColumns.length][];
      this.slotLongs = new long[slotColumns.length][];
      for (int s = 0; s < slotColumns.length; s++) {
        if (slotColumns[s] >= 0) { // -1: a program no transaction of the batch runs
          Column c = columns.get(slotColumns[s]);
          slotInts[s] = c.ints();
          slotLongs[s] = c.longs();
        }
      }
      this.paramFirst = program.paramSlots();
      this.paramLength = program.params().stream().mapToInt(Program.Param::length).toArray();
    }

    public CompiledProgram program() {
      return program;
    }

    /** Store region index of each program region. */
    public int[] regions() {
      return regions.clone();
    }

    /** Batch column index of each parameter slot. */
    public int[] slotColumns() {
      return slotColumns.clone();
    }
  }

  private ProgramBinding(ProgramBatch batch, StoreLayout layout, List<Column> columns,
      Bound[] bound, int capacity, int csmvReadCapacity) {
    this.batch = batch;
    this.layout = layout;
    this.columns = columns;
    this.bound = bound;
    this.capacity = capacity;
    this.csmvReadCapacity = csmvReadCapacity;
  }

  /**
   * Binds {@code batch} to a store of {@code layout} run by {@code algorithm}; throws an
   * IllegalArgumentException ({@link ProgramException} for a program's own problem) naming what
   * is wrong.
   */
  public static ProgramBinding bind(ProgramBatch batch, StoreLayout layout, Algorithm algorithm) {
    ProgramSet set = batch.programs();
    List<Column> columns = batch.columns();
    boolean[] used = batch.usedPrograms();
    Bound[] bound = new Bound[set.size()];
    long setEntries = 1;
    long csmvReads = 0;
    for (int p = 0; p < set.size(); p++) {
      CompiledProgram prog = set.get(p);
      int[] regions = new int[prog.regions().size()];
      int[] lengths = new int[regions.length];
      for (int r = 0; r < regions.length && used[p]; r++) {
        regions[r] = regionOf(layout, prog, prog.regions().get(r));
        lengths[r] = layout.region(regions[r]).length();
      }
      List<String> names = prog.columnNames();
      int[] slots = new int[names.size()];
      for (int s = 0; s < slots.length; s++) {
        slots[s] = -1;
        for (int c = 0; c < columns.size(); c++) {
          if (columns.get(c).name().equals(names.get(s))) {
            slots[s] = c;
          }
        }
        if (slots[s] < 0 && used[p]) {
          throw new IllegalArgumentException("column '" + names.get(s) + "' is missing: "
              + "program '" + prog.name() + "' reads it");
        }
      }
      bound[p] = new Bound(prog, regions, lengths, slots, columns);
      if (used[p]) {
        // PR-STM's lock set holds a lock once however many words it guards: a program whose
        // regions share one row of locks needs an entry per index, not per word.
        boolean rowLocks = algorithm.kind() == Algorithm.Kind.PRSTM
            && oneRowOfLocks(layout, prog, regions);
        setEntries = Math.max(setEntries,
            rowLocks ? prog.analysis().rowSetEntries() : prog.analysis().setEntries());
        if (!prog.analysis().readOnly()) {
          csmvReads = Math.max(csmvReads, prog.analysis().reads());
        }
      }
    }
    checkSharedRegions(set, bound, used);
    if (algorithm.isCsmv()) {
      checkCsmv(set, used, layout);
    }
    int cap = capacityFor(Math.min(setEntries, CAPACITIES[CAPACITIES.length - 1]));
    int readCap = (int) Math.max(1, Math.min(csmvReads, CSMV_MAX_READS));
    return new ProgramBinding(batch, layout, columns, bound, cap, readCap);
  }

  /** Whether the program's locked regions (all but its shared ones) share one row of locks. */
  private static boolean oneRowOfLocks(StoreLayout layout, CompiledProgram prog, int[] regions) {
    int first = -1;
    for (int r = 0; r < regions.length; r++) {
      if (prog.regions().get(r).shared()) {
        continue;
      }
      if (first < 0) {
        first = regions[r];
      } else if (!layout.sameLocks(first, regions[r])) {
        return false;
      }
    }
    return true;
  }

  private static int regionOf(StoreLayout layout, CompiledProgram prog,
      Program.RegionDecl decl) {
    return layout.regionNamed(decl.name(), decl.type().regionType(),
        "program '" + prog.name() + "'");
  }

  /** A region some program reads as shared must be written by no program of the batch. */
  private static void checkSharedRegions(ProgramSet set, Bound[] bound, boolean[] used) {
    for (int p = 0; p < set.size(); p++) {
      if (!used[p]) {
        continue;
      }
      for (int r = 0; r < bound[p].regions.length; r++) {
        if (!set.get(p).regions().get(r).shared()) {
          continue;
        }
        int storeRegion = bound[p].regions[r];
        for (int q = 0; q < set.size(); q++) {
          if (!used[q] || set.get(q).analysis().readOnly()) {
            continue;
          }
          for (int s = 0; s < bound[q].regions.length; s++) {
            if (bound[q].regions[s] == storeRegion && !set.get(q).regions().get(s).shared()
                && writesRegion(set.get(q), s)) {
              throw new IllegalArgumentException("region '"
                  + set.get(p).regions().get(r).name() + "' is shared in program '"
                  + set.get(p).name() + "' (read outside the read set) but program '"
                  + set.get(q).name() + "' writes it in the same batch");
            }
          }
        }
      }
    }
  }

  private static boolean writesRegion(CompiledProgram p, int region) {
    int[] code = p.code();
    for (int pc = 0; pc < code.length; pc += Opcodes.length(code[pc] & 0xff)) {
      if ((code[pc] & 0xff) == Opcodes.WR && (code[pc] >>> 8 & 0xff) == region) {
        return true;
      }
    }
    return false;
  }

  private static void checkCsmv(ProgramSet set, boolean[] used, StoreLayout layout) {
    for (int p = 0; p < set.size(); p++) {
      CompiledProgram prog = set.get(p);
      if (!used[p]) {
        continue;
      }
      if (prog.analysis().retries()) {
        throw new ProgramException(prog.name(), null, "uses retry, but CSMV stores have no "
            + "semantic contention manager; run it on a PR-STM store");
      }
      if (prog.analysis().writeEntries() > CsmvChecks.MAX_WRITES) {
        throw new ProgramException(prog.name(), null, "may write up to "
            + prog.analysis().writeEntries() + " words, more than the " + CsmvChecks.MAX_WRITES
            + " a CSMV commit-record entry holds");
      }
      if (!prog.analysis().readOnly() && prog.analysis().reads() > CSMV_MAX_READS) {
        throw new ProgramException(prog.name(), null, "may read up to "
            + prog.analysis().reads() + " words, more than the " + CSMV_MAX_READS
            + " read-set slots a CSMV update transaction has");
      }
      for (Program.RegionDecl d : prog.regions()) {
        if (d.type().isWide()) {
          throw new ProgramException(prog.name(), null, "region '" + d.name() + "' is "
              + d.type() + ", but CSMV stores hold 32-bit words (int32, float32)");
        }
      }
    }
  }

  public ProgramBatch batch() {
    return batch;
  }

  public StoreLayout layout() {
    return layout;
  }

  /** The batch's columns, in the order slots refer to them. */
  public List<Column> columns() {
    return columns;
  }

  /** The binding of type code {@code type}. */
  public Bound bound(int type) {
    return bound[type];
  }

  public int programCount() {
    return bound.length;
  }

  /** PR-STM set capacity for this batch: one of {@link #CAPACITIES}. */
  public int capacity() {
    return capacity;
  }

  /** CSMV read-set slots per update transaction. */
  public int csmvReadCapacity() {
    return csmvReadCapacity;
  }
}
