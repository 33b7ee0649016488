package io.gstm.core.workload.vacation;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.workload.Verdict;
import java.util.ArrayList;
import java.util.List;

/**
 * Vacation's exact verifier.
 *
 * <p>{@link #verify} needs only the final state and who committed: no transaction pending, no
 * room type overbooked (a free count is never negative, and free rooms plus the customers whose
 * record books the type equal what the type started with: rooms are conserved), padding words
 * untouched, every customer record names a room type or nothing, and each customer's final record
 * is one its committed transactions can produce (a booking from one of its committed BOOKs, or
 * the initial one if none of its CANCELs committed; no booking only if a CANCEL committed or it
 * had none to begin with and no BOOK committed).
 *
 * <p>{@link #replay} also needs a serial order (the history checker's): replaying exactly the
 * committed transactions in it from the initial state, every committed BOOK that took a room saw
 * one free, every committed CANCEL saw a booking, every BOOK that found its customer already
 * booked returned that booking, and the replay ends in the final state, word for word.
 */
public final class VacationVerifier {
  private static final int MAX_REPORTED = 10;

  private VacationVerifier() {}

  /** Collects problems, keeping the first {@value #MAX_REPORTED} and counting the rest. */
  private static final class Problems {
    final List<String> list = new ArrayList<>();
    int count;

    void add(String problem) {
      if (count++ < MAX_REPORTED) {
        list.add(problem);
      }
    }

    Verdict verdict() {
      List<String> out = new ArrayList<>(list);
      if (count > MAX_REPORTED) {
        out.add("... " + (count - MAX_REPORTED) + " more problems");
      }
      return new Verdict(count == 0, List.copyOf(out));
    }
  }

  /** Checks the final state against the initial one and the outcomes (see the class comment). */
  public static Verdict verify(int[] initialRooms, int[] initialCustomers, TxBatch batch,
      BatchResult result, int[] finalRooms, int[] finalCustomers) {
    Problems problems = new Problems();
    if (!sameShape(initialRooms, initialCustomers, finalRooms, finalCustomers, problems)) {
      return problems.verdict();
    }
    int stride = VacationWorkload.stride(batch);
    int roomTypes = VacationWorkload.roomTypes(batch);
    Verdict.neverRan(result, batch.txCount()).ifPresent(problems::add);

    // Per customer: committed BOOKs (their types, as a small list) and committed CANCELs.
    int customers = initialCustomers.length;
    int[] cancels = new int[customers];
    int[] books = new int[customers];
    int[] bookedTypes = new int[roomTypes];
    for (int t = 0; t < batch.txCount(); t++) {
      if (result.outcome(t) != Outcome.COMMITTED) {
        continue;
      }
      int customer = VacationWorkload.Column.CUSTOMER.of(batch)[t];
      if (VacationWorkload.Type.BOOK.is(batch.types()[t])) {
        books[customer]++;
        bookedTypes[VacationWorkload.Column.ROOM_TYPE.of(batch)[t]]++;
      } else {
        cancels[customer]++;
      }
    }
    long[] initialHeld = held(initialCustomers, roomTypes, null);
    long[] finalHeld = held(finalCustomers, roomTypes, problems);
    for (int r = 0; r < roomTypes; r++) {
      int at = r * stride;
      if (finalRooms[at] < 0) {
        problems.add("room type " + r + " is overbooked: " + finalRooms[at] + " free");
      }
      long before = (long) initialRooms[at] + initialHeld[r];
      long after = (long) finalRooms[at] + finalHeld[r];
      if (before != after) {
        problems.add("room type " + r + ": " + finalRooms[at] + " free + " + finalHeld[r]
            + " booked = " + after + ", but it started with " + initialRooms[at] + " free + "
            + initialHeld[r] + " booked = " + before);
      }
      if (finalHeld[r] > initialHeld[r] + bookedTypes[r]) {
        problems.add("room type " + r + ": " + finalHeld[r] + " customers hold it, more than the "
            + initialHeld[r] + " at the start plus " + bookedTypes[r] + " committed bookings");
      }
    }
    for (int i = 0; i < finalRooms.length; i++) {
      if (i % stride != 0 || i / stride >= roomTypes) {
        if (finalRooms[i] != initialRooms[i]) {
          problems.add("rooms padding word " + i + " changed from " + initialRooms[i] + " to "
              + finalRooms[i]);
        }
      }
    }
    int[][] byCustomer = committedBookTypes(batch, result, customers, books);
    for (int c = 0; c < customers; c++) {
      int fin = finalCustomers[c];
      int init = initialCustomers[c];
      if (fin < 0 || fin > roomTypes) {
        continue;  // reported by held()
      }
      if (fin != 0) {
        boolean fromBook = false;
        for (int type : byCustomer[c]) {
          fromBook = fromBook || type + 1 == fin;
        }
        boolean kept = fin == init && cancels[c] == 0;
        if (!fromBook && !kept) {
          problems.add("customer " + c + " holds room type " + (fin - 1) + ", which none of its "
              + books[c] + " committed booking(s) took" + (fin == init
                  ? " and its initial booking was cancelled" : ""));
        }
      } else if (cancels[c] == 0 && (init != 0 || books[c] > 0)) {
        problems.add("customer " + c + " holds no booking, but no CANCEL of it committed "
            + "(initial record " + init + ", " + books[c] + " committed booking(s))");
      }
      if (cancels[c] > books[c] + (init != 0 ? 1 : 0)) {
        problems.add("customer " + c + ": " + cancels[c] + " committed CANCELs but only "
            + books[c] + " committed BOOKs and " + (init != 0 ? "a" : "no")
            + " booking at the start");
      }
    }
    return problems.verdict();
  }

  /**
   * Replays the committed transactions in {@code serialOrder} (the history checker's) from the
   * initial state and checks each against what it must have seen, and the end against the final
   * state (see the class comment).
   */
  public static Verdict replay(int[] initialRooms, int[] initialCustomers, TxBatch batch,
      BatchResult result, int[] serialOrder, int[] finalRooms, int[] finalCustomers) {
    Problems problems = new Problems();
    if (!sameShape(initialRooms, initialCustomers, finalRooms, finalCustomers, problems)) {
      return problems.verdict();
    }
    int stride = VacationWorkload.stride(batch);
    int roomTypes = VacationWorkload.roomTypes(batch);
    boolean[] seen = new boolean[batch.txCount()];
    for (int t : serialOrder) {
      if (t < 0 || t >= batch.txCount()) {
        problems.add("serial order names transaction " + t + ", outside 0.."
            + (batch.txCount() - 1));
        return problems.verdict();
      }
      if (seen[t]) {
        problems.add("serial order names transaction " + t + " twice");
      }
      seen[t] = true;
      if (result.outcome(t) != Outcome.COMMITTED) {
        problems.add("serial order names transaction " + t + ", which ended "
            + result.outcome(t));
      }
    }
    for (int t = 0; t < batch.txCount(); t++) {
      if (result.outcome(t) == Outcome.COMMITTED && !seen[t]) {
        problems.add("committed transaction " + t + " is missing from the serial order");
      }
    }

    int[] rooms = initialRooms.clone();
    int[] customers = initialCustomers.clone();
    int[] customerCol = VacationWorkload.Column.CUSTOMER.of(batch);
    int[] roomCol = VacationWorkload.Column.ROOM_TYPE.of(batch);
    for (int t : serialOrder) {
      int customer = customerCol[t];
      int booked = customers[customer];
      if (VacationWorkload.Type.BOOK.is(batch.types()[t])) {
        if (booked != 0) {
          if (result.results()[t] != booked) {
            problems.add("BOOK " + t + " found customer " + customer + " already booked (record "
                + booked + ") at its serial position, but returned " + result.results()[t]);
          }
          continue;
        }
        int at = roomCol[t] * stride;
        if (rooms[at] <= 0) {
          problems.add("BOOK " + t + " committed a room of type " + roomCol[t] + " for customer "
              + customer + ", which had " + rooms[at] + " free at its serial position");
        }
        rooms[at]--;
        customers[customer] = roomCol[t] + 1;
      } else {
        if (booked <= 0 || booked > roomTypes) {
          problems.add("CANCEL " + t + " committed for customer " + customer + ", whose record "
              + "was " + booked + " (no booking) at its serial position");
          continue;
        }
        rooms[(booked - 1) * stride]++;
        customers[customer] = 0;
      }
    }
    compare("rooms word", rooms, finalRooms, problems);
    compare("customer", customers, finalCustomers, problems);
    return problems.verdict();
  }

  private static boolean sameShape(int[] initialRooms, int[] initialCustomers, int[] finalRooms,
      int[] finalCustomers, Problems problems) {
    if (initialRooms.length != finalRooms.length) {
      problems.add("rooms: " + initialRooms.length + " initial words but " + finalRooms.length
          + " final ones");
    }
    if (initialCustomers.length != finalCustomers.length) {
      problems.add("customers: " + initialCustomers.length + " initial records but "
          + finalCustomers.length + " final ones");
    }
    return problems.count == 0;
  }

  /** Customers holding each room type; a record naming no type is a problem (if reported). */
  private static long[] held(int[] customers, int roomTypes, Problems problems) {
    long[] held = new long[roomTypes];
    for (int c = 0; c < customers.length; c++) {
      int v = customers[c];
      if (v > 0 && v <= roomTypes) {
        held[v - 1]++;
      } else if (v != 0 && problems != null) {
        problems.add("customer " + c + " has record " + v + ", which names no room type (0.."
            + roomTypes + ")");
      }
    }
    return held;
  }

  /** Per customer, the room types of its committed BOOKs. */
  private static int[][] committedBookTypes(TxBatch batch, BatchResult result, int customers,
      int[] books) {
    int[][] byCustomer = new int[customers][];
    int[] fill = new int[customers];
    for (int c = 0; c < customers; c++) {
      byCustomer[c] = new int[books[c]];
    }
    for (int t = 0; t < batch.txCount(); t++) {
      if (result.outcome(t) == Outcome.COMMITTED
          && VacationWorkload.Type.BOOK.is(batch.types()[t])) {
        int c = VacationWorkload.Column.CUSTOMER.of(batch)[t];
        byCustomer[c][fill[c]++] = VacationWorkload.Column.ROOM_TYPE.of(batch)[t];
      }
    }
    return byCustomer;
  }

  private static void compare(String what, int[] expected, int[] actual, Problems problems) {
    for (int i = 0; i < expected.length; i++) {
      if (expected[i] != actual[i]) {
        problems.add(what + " " + i + ": replay gives " + expected[i] + ", found " + actual[i]);
      }
    }
  }
}
