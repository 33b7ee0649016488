package io.gstm.core.workload.vacation;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.BatchChecks;
import io.gstm.core.workload.TxContext;
import io.gstm.core.workload.ValueChecks;
import io.gstm.core.workload.NamedWorkload;
import io.gstm.core.workload.ColumnSlot;
import io.gstm.core.workload.ParamSlot;
import io.gstm.core.workload.TxType;

/**
 * Vacation, the travel-reservation workload of the JPDC PR-STM paper: customers book and cancel
 * rooms of a hotel with a fixed number of rooms per room type. Twin of
 * {@code gstm/workloads/vacation.cuh}; keep the two in step.
 *
 * <p>Store: an INT32 region of room records, where the free-room count of room type {@code r}
 * sits at word {@code r * stride} (the words in between are padding, so with
 * {@code stride = lockCoverage} no two room types share a lock), and an INT32 region of customer
 * records, one word per customer: the booked room type + 1, or 0 for no booking.
 *
 * <p>Batch encoding: column 0 is the customer, column 1 the room type (BOOK) or unused (CANCEL;
 * the generator writes -1 and nothing reads it); {@code params = {roomsRegion, customersRegion,
 * stride, roomTypes}}.
 *
 * <ul>
 *   <li>{@link Type#BOOK}: reads the customer's record. If the customer already holds a
 *       booking, the transaction is a read-only no-op and returns the record it saw (type + 1).
 *       Otherwise it reads the room type's free count; none free is a semantic conflict (sold
 *       out: it waits for a cancellation), else it takes a room ({@code free - 1}) and records
 *       {@code roomType + 1} for the customer. It returns 0 then.
 *   <li>{@link Type#CANCEL}: reads the customer's record. No booking is a semantic conflict (the
 *       booking it cancels has not happened yet); so is a record that names no room type (a
 *       corrupt store: it can never proceed, so it ends ABANDONED_SEMANTIC and changes nothing,
 *       rather than touching memory outside the region). Else it gives the room back
 *       ({@code free + 1} for the booked type) and clears the record. It returns 0.
 * </ul>
 *
 * <p>Every transaction touches at most two locks (the customer's and one room type's), so
 * capacity 2 holds any vacation transaction. The room-type count is a parameter (not only a
 * validation limit) so that the bodies can bound a room type read from the store.
 */
public final class VacationWorkload extends NamedWorkload {
  public static final String NAME = "vacation";
  public static final VacationWorkload INSTANCE = new VacationWorkload();

  /** The transaction types, in code order. */
  public enum Type implements TxType { BOOK, CANCEL }

  /** The columns, one value per transaction. */
  public enum Column implements ColumnSlot { CUSTOMER, ROOM_TYPE }

  /** The slots of {@code params}. */
  public enum Param implements ParamSlot { ROOMS_REGION, CUSTOMERS_REGION, STRIDE, ROOM_TYPES }

  /**
   * Bookings run before cancellations when a batch is pre-sorted. The two depend on each other:
   * a CANCEL needs its customer's BOOK to have committed (until then it is a semantic conflict),
   * while a BOOK of a sold-out room type needs some CANCEL to free a room. Bookings go first
   * because every CANCEL depends on a BOOK, whereas a BOOK waits for a CANCEL only when its type
   * is sold out; the bookings left waiting then are served by the cancellations of the later
   * rounds (the postponement of the semantic contention manager).
   */
  private VacationWorkload() {
    super(NAME, 1, 0);
  }

  @Override
  public void validate(StoreLayout layout, TxBatch batch) {
    BatchChecks.params(batch, "vacation", Param.values());
    int rooms = Param.ROOMS_REGION.region(batch, layout, RegionType.INT32, "room records");
    int customers =
        Param.CUSTOMERS_REGION.region(batch, layout, RegionType.INT32, "customer records");
    if (rooms == customers) {
      throw new IllegalArgumentException("customersRegion: must differ from roomsRegion ("
          + rooms + "); rooms and customers live in separate regions");
    }
    int roomsLength = layout.region(rooms).length();
    int customerCount = layout.region(customers).length();
    int stride = stride(batch);
    ValueChecks.atLeast("stride", stride, 1, "word per room-type record");
    int roomTypes = roomTypes(batch);
    ValueChecks.atLeast("roomTypes", roomTypes, 1);
    long lastRecord = (long) (roomTypes - 1) * stride;
    if (lastRecord >= roomsLength) {
      throw new IllegalArgumentException("roomTypes: " + roomTypes + " room types with stride "
          + stride + " need room records up to word " + lastRecord + ", but region " + rooms
          + " has words 0.." + (roomsLength - 1) + " (at most "
          + ((roomsLength - 1) / stride + 1) + " room types)");
    }
    BatchChecks.columns(batch, "vacation", Column.values());
    BatchChecks.types(batch, "vacation", Type.values());
    int[] types = batch.types();
    int[] customerCol = Column.CUSTOMER.of(batch);
    int[] roomCol = Column.ROOM_TYPE.of(batch);
    for (int t = 0; t < types.length; t++) {
      BatchChecks.index(customerCol[t], customerCount, t, "customer",
          "region " + customers + " has customers");
      if (Type.BOOK.is(types[t])) {
        BatchChecks.index(roomCol[t], roomTypes, t, "roomType", "room types");
      }
    }
  }

  @Override
  public long run(TxContext tx, TxBatch batch, int t) {
    int rooms = roomsRegion(batch);
    int customers = customersRegion(batch);
    int stride = stride(batch);
    int customer = Column.CUSTOMER.of(batch)[t];
    int booked = (int) tx.read(customers, customer);
    if (Type.BOOK.is(batch.types()[t])) {
      if (booked != 0) {
        return booked;
      }
      int roomType = Column.ROOM_TYPE.of(batch)[t];
      int at = roomType * stride;
      int free = (int) tx.read(rooms, at);
      if (free <= 0) {
        tx.semanticConflict();
        return 0;
      }
      tx.write(rooms, at, free - 1);
      tx.write(customers, customer, roomType + 1);
      return 0;
    }
    if (booked <= 0 || booked > roomTypes(batch)) {
      tx.semanticConflict();
      return 0;
    }
    int at = (booked - 1) * stride;
    int free = (int) tx.read(rooms, at);
    tx.write(rooms, at, free + 1);
    tx.write(customers, customer, 0);
    return 0;
  }

  public static int roomsRegion(TxBatch batch) {
    return Param.ROOMS_REGION.of(batch);
  }

  public static int customersRegion(TxBatch batch) {
    return Param.CUSTOMERS_REGION.of(batch);
  }

  public static int stride(TxBatch batch) {
    return Param.STRIDE.of(batch);
  }

  public static int roomTypes(TxBatch batch) {
    return Param.ROOM_TYPES.of(batch);
  }
}
