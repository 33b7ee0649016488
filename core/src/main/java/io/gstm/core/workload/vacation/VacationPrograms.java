package io.gstm.core.workload.vacation;

import static io.gstm.core.program.Term.of;
import static io.gstm.core.program.Term.read;
import static io.gstm.core.program.Term.ref;
import static io.gstm.core.program.ValueType.INT32;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.program.Program;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramSet;
import java.util.List;

/**
 * Vacation written as transaction programs, with the meaning of {@link VacationWorkload}: type
 * codes 0 book, 1 cancel. Columns {@code customer} and {@code room}; regions {@code rooms}
 * (free count of room type r at word r * stride) and {@code customers} (booked type + 1, or 0).
 */
public final class VacationPrograms {
  private VacationPrograms() {}

  public static String text(int stride, int roomTypes) {
    return """
        // Books a room of a type for a customer; a customer who holds a booking already makes it
        // a read-only no-op that reports the booking. Sold out: wait for a cancellation.
        program book(customer: int32, room: int32)
            regions rooms: int32, customers: int32
            outputs seen: int32
            tag 1
        {
          let booked = customers[customer];
          if (booked != 0) {
            seen = booked;
            return;
          }
          let at = room * {STRIDE};
          let free = rooms[at];
          if (free <= 0) { retry; }
          rooms[at] = free - 1;
          customers[customer] = room + 1;
        }

        // Gives the customer's room back; waits (retry) until the booking exists.
        program cancel(customer: int32)
            regions rooms: int32, customers: int32
        {
          let booked = customers[customer];
          if (booked <= 0 || booked > {TYPES}) { retry; }
          let at = (booked - 1) * {STRIDE};
          rooms[at] = rooms[at] + 1;
          customers[customer] = 0;
        }
        """.replace("{STRIDE}", Integer.toString(stride))
        .replace("{TYPES}", Integer.toString(roomTypes));
  }

  public static List<Program> built(int stride, int roomTypes) {
    Program book = Program.builder("book").param("customer", INT32).param("room", INT32)
        .region("rooms", INT32).region("customers", INT32).output("seen", INT32).tag(1)
        .let("booked", read("customers", ref("customer")))
        .ifThen(ref("booked").ne(of(0)), b -> b.set("seen", ref("booked")).done())
        .let("at", ref("room").mul(stride))
        .let("free", read("rooms", ref("at")))
        .ifThen(ref("free").le(of(0)), b -> b.retry())
        .write("rooms", ref("at"), ref("free").sub(1))
        .write("customers", ref("customer"), ref("room").add(1))
        .build();
    Program cancel = Program.builder("cancel").param("customer", INT32)
        .region("rooms", INT32).region("customers", INT32)
        .let("booked", read("customers", ref("customer")))
        .ifThen(ref("booked").le(of(0)).or(ref("booked").gt(of(roomTypes))), b -> b.retry())
        .let("at", ref("booked").sub(1).mul(stride))
        .write("rooms", ref("at"), read("rooms", ref("at")).add(1))
        .write("customers", ref("customer"), of(0))
        .build();
    return List.of(book, cancel);
  }

  public static ProgramSet set(TxBatch vacation, boolean builder) {
    int stride = VacationWorkload.stride(vacation);
    int types = VacationWorkload.roomTypes(vacation);
    return builder ? ProgramSet.compile(built(stride, types))
        : ProgramSet.parse(text(stride, types));
  }

  public static ProgramBatch batch(TxBatch vacation, ProgramSet programs) {
    return ProgramBatch.builder(programs).types(vacation.types())
        .int32("customer", VacationWorkload.Column.CUSTOMER.of(vacation))
        .int32("room", VacationWorkload.Column.ROOM_TYPE.of(vacation))
        .grid(vacation.threadsPerBlock(), vacation.blocks()).build();
  }
}
