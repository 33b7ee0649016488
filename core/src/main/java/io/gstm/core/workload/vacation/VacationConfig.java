package io.gstm.core.workload.vacation;

import io.gstm.core.batch.Grid;
import io.gstm.core.batch.GridBuilder;
import io.gstm.core.batch.OnGrid;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.Shuffles;
import io.gstm.core.workload.ValueChecks;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A vacation run: the store layout, the initial state and a seeded batch of bookings and
 * cancellations ({@link VacationWorkload}). {@link #paper} gives the JPDC PR-STM paper's hotel:
 * 150,000 customers, 1,000 room types, 150 rooms each.
 *
 * <p>Store: region 0 {@code "rooms"} (INT32, {@code roomTypes * stride} words, one lock per
 * {@code lockCoverage} words) with room type {@code r}'s free count at word {@code r * stride},
 * {@code stride = lockCoverage}, so each room type has a lock of its own; region 1
 * {@code "customers"} (INT32, one word and one lock per customer).
 *
 * <p>Generation, for a batch of {@code n = blocks * threadsPerBlock * txPerThread} transactions,
 * from one {@link SplittableRandom} seeded with {@code seed}:
 *
 * <ol>
 *   <li>{@code pairs = min(round(semanticRatio * n / 2), customers, n / 2)} book/cancel pairs,
 *       each for a distinct customer (drawn without replacement): a BOOK of a uniformly random
 *       room type and a CANCEL of that customer's booking. These are the semantic transactions:
 *       a CANCEL that runs before its BOOK committed cannot proceed yet.
 *   <li>The other {@code n - 2 * pairs} transactions are lone BOOKs of a uniformly random room
 *       type by a uniformly random customer outside the pairs (with replacement, so a customer
 *       may book twice: the second is a no-op; any customer when the pairs take them all).
 *   <li>A Fisher-Yates shuffle puts every transaction anywhere, so about half the CANCELs come
 *       before their BOOK and meet a semantic conflict until it commits.
 * </ol>
 *
 * <p>A paired customer's record is touched only by its own BOOK and CANCEL, so the CANCEL can run
 * once its BOOK committed, and gives back exactly the room that BOOK took. A BOOK of a sold-out
 * type is the other semantic conflict: it waits for a cancellation of that type. Under
 * postponement with enough patience every transaction therefore commits as long as the bookings
 * of each type that are never cancelled stay within {@code roomsPerType} (the paper's hotel has as
 * many rooms as customers; scarcer configurations leave some bookings ABANDONED_SEMANTIC).
 *
 * <p>Room types are uniform, as in the paper. (An earlier generator sent the paired bookings to
 * the hottest 1% of types; its 99% abort rate measured those ten records, not the contention
 * manager: docs/benchmarks.md keeps those numbers.)
 *
 * @param customers customer records, at least 1
 * @param roomTypes room types, at least 1
 * @param roomsPerType rooms of each type, at least 0
 * @param semanticRatio share of the batch in book/cancel pairs, 0..1
 * @param lockCoverage words per lock of the rooms region, and the record stride, at least 1
 * @param grid 1..256 threads per block, at least 1 block, at least 1 transaction per thread
 * @param seed random seed of the batch
 */
public record VacationConfig(
    int customers,
    int roomTypes,
    int roomsPerType,
    double semanticRatio,
    int lockCoverage,
    Grid grid,
    long seed) implements OnGrid {

  /** The paper's hotel. */
  public static final int PAPER_CUSTOMERS = 150_000;
  public static final int PAPER_ROOM_TYPES = 1_000;
  public static final int PAPER_ROOMS_PER_TYPE = 150;

  public VacationConfig {
    Objects.requireNonNull(grid, "grid");
    ValueChecks.atLeast("customers", customers, 1);
    ValueChecks.atLeast("roomTypes", roomTypes, 1);
    ValueChecks.atLeast("roomsPerType", roomsPerType, 0);
    ValueChecks.fraction("semanticRatio", semanticRatio);
    ValueChecks.atLeast("lockCoverage", lockCoverage, 1, "word per lock");
    if ((long) roomTypes * lockCoverage > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("roomTypes * lockCoverage = "
          + (long) roomTypes * lockCoverage + " words exceeds the region limit "
          + Integer.MAX_VALUE);
    }
    ValueChecks.grid(grid);
  }

  /**
   * A builder with the {@code gstm vacation} defaults: the paper's hotel, only book/cancel pairs,
   * one word per lock, 30 blocks of 224 threads, 16 transactions per thread, seed 1.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** The paper's hotel: 150,000 customers, 1,000 room types of 150 rooms. */
  public static VacationConfig paper(int threadsPerBlock, int blocks, int txPerThread,
      double semanticRatio, int lockCoverage, long seed) {
    return new VacationConfig(PAPER_CUSTOMERS, PAPER_ROOM_TYPES, PAPER_ROOMS_PER_TYPE,
        semanticRatio, lockCoverage, new Grid(threadsPerBlock, blocks, txPerThread), seed);
  }

  /** Words between two room-type records: the lock coverage, so each record has its own lock. */
  public int stride() {
    return lockCoverage;
  }

  /** Words of the rooms region. */
  public int roomsLength() {
    return roomTypes * stride();
  }

  /** Book/cancel pairs in the batch. */
  public int pairs() {
    return (int) Math.min(Math.min(Math.round(semanticRatio * txCount() / 2), customers),
        txCount() / 2);
  }

  /** Region 0 rooms (coverage {@code lockCoverage}), region 1 customers (coverage 1). */
  public StoreLayout layout() {
    return StoreLayout.of(
        new RegionSpec("rooms", RegionType.INT32, roomsLength(), lockCoverage),
        new RegionSpec("customers", RegionType.INT32, customers, 1));
  }

  /** {@code roomsPerType} at each record, zeros in the padding. */
  public int[] initialRooms() {
    int[] rooms = new int[roomsLength()];
    for (int r = 0; r < roomTypes; r++) {
      rooms[r * stride()] = roomsPerType;
    }
    return rooms;
  }

  /** No customer holds a booking. */
  public int[] initialCustomers() {
    return new int[customers];
  }

  /** The seeded batch (see the class comment): params {0, 1, stride, roomTypes}, capacity 2. */
  public TxBatch batch() {
    int n = txCount();
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] types = new int[n];
    int[][] cols = new int[VacationWorkload.Column.values().length][n];
    int[] customerCol = cols[VacationWorkload.Column.CUSTOMER.index()];
    int[] roomCol = cols[VacationWorkload.Column.ROOM_TYPE.index()];
    int pairs = pairs();
    // Distinct customers for the pairs: a partial Fisher-Yates shuffle of 0..customers-1.
    int[] ids = Shuffles.identity(customers);
    for (int p = 0; p < pairs; p++) {
      int customer = Shuffles.draw(ids, p, rnd);
      types[2 * p] = VacationWorkload.Type.BOOK.code();
      customerCol[2 * p] = customer;
      roomCol[2 * p] = rnd.nextInt(roomTypes);
      types[2 * p + 1] = VacationWorkload.Type.CANCEL.code();
      customerCol[2 * p + 1] = customer;
      roomCol[2 * p + 1] = -1;
    }
    int others = customers - pairs;
    for (int t = 2 * pairs; t < n; t++) {
      types[t] = VacationWorkload.Type.BOOK.code();
      customerCol[t] = others > 0 ? ids[pairs + rnd.nextInt(others)] : rnd.nextInt(customers);
      roomCol[t] = rnd.nextInt(roomTypes);
    }
    Shuffles.rows(types, cols, rnd);
    return new TxBatch(VacationWorkload.NAME, types, cols,
        new int[] {0, 1, stride(), roomTypes}, threadsPerBlock(), blocks(),
        TxBatch.capacityFor(2));
  }

  /** Named settings of a {@link VacationConfig}; {@link #build} checks them. */
  public static final class Builder extends GridBuilder<Builder> {
    private int customers = PAPER_CUSTOMERS;
    private int roomTypes = PAPER_ROOM_TYPES;
    private int roomsPerType = PAPER_ROOMS_PER_TYPE;
    private double semanticRatio = 1;
    private int lockCoverage = 1;

    private Builder() {
      super(224, 30, 16);
    }

    /** Customer records, at least 1. */
    public Builder customers(int value) {
      customers = value;
      return this;
    }

    /** Room types, at least 1. */
    public Builder roomTypes(int value) {
      roomTypes = value;
      return this;
    }

    /** Rooms of each type, at least 0. */
    public Builder roomsPerType(int value) {
      roomsPerType = value;
      return this;
    }

    /** Share of the batch in book/cancel pairs, 0..1. */
    public Builder semanticRatio(double value) {
      semanticRatio = value;
      return this;
    }

    /** Words per lock of the rooms region, and the record stride, at least 1. */
    public Builder lockCoverage(int value) {
      lockCoverage = value;
      return this;
    }

    /** The configuration; an IllegalArgumentException names a bad value and its limit. */
    public VacationConfig build() {
      return new VacationConfig(customers, roomTypes, roomsPerType, semanticRatio, lockCoverage,
          grid(), seed());
    }
  }
}
