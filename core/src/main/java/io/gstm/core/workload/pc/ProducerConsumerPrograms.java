package io.gstm.core.workload.pc;

import static io.gstm.core.program.Term.of;
import static io.gstm.core.program.Term.read;
import static io.gstm.core.program.Term.ref;
import static io.gstm.core.program.ValueType.INT32;
import static io.gstm.core.program.ValueType.INT64;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.program.Program;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.Term;
import java.util.List;

/**
 * Producer-consumer written as transaction programs, with the meaning of
 * {@link ProducerConsumerWorkload}: type codes 0 put, 1 take. Columns {@code who} (producer or
 * consumer) and {@code arg} (the put's sequence number, the take's word of {@code taken}).
 */
public final class ProducerConsumerPrograms {
  private ProducerConsumerPrograms() {}

  public static String text(int capacity) {
    return """
        // Puts item (who << 32 | arg) at the tail; a full buffer waits (retry).
        program put(who: int32, arg: int32)
            regions slots: int64, counters: int32
            tag 1
        {
          let head = counters[0];
          let tail = counters[1];
          if (tail - head >= {CAP}) { retry; }
          slots[int32((int64(tail) & 0xFFFFFFFFL) % {CAP})] =
              int64(who) << 32 | int64(arg) & 0xFFFFFFFFL;
          counters[1] = tail + 1;
        }

        // Takes the item at the head into taken[arg]; an empty buffer waits (retry).
        program take(who: int32, arg: int32)
            regions slots: int64, counters: int32, taken: int64
            outputs item: int64
        {
          let head = counters[0];
          let tail = counters[1];
          if (tail - head <= 0) { retry; }
          let v = slots[int32((int64(head) & 0xFFFFFFFFL) % {CAP})];
          taken[arg] = v;
          counters[0] = head + 1;
          item = v;
        }
        """.replace("{CAP}", Integer.toString(capacity));
  }

  /** {@code int32((int64(x) & 0xFFFFFFFF) % capacity)}: an unsigned remainder. */
  private static Term slotOf(String counter, int capacity) {
    return ref(counter).as(INT64).bitAnd(of(0xFFFFFFFFL)).rem(of((long) capacity)).as(INT32);
  }

  public static List<Program> built(int capacity) {
    Program put = Program.builder("put").param("who", INT32).param("arg", INT32)
        .region("slots", INT64).region("counters", INT32).tag(1)
        .let("head", read("counters", of(0)))
        .let("tail", read("counters", of(1)))
        .ifThen(ref("tail").sub(ref("head")).ge(of(capacity)), b -> b.retry())
        .write("slots", slotOf("tail", capacity), ref("who").as(INT64).shl(of(32))
            .bitOr(ref("arg").as(INT64).bitAnd(of(0xFFFFFFFFL))))
        .write("counters", of(1), ref("tail").add(1))
        .build();
    Program take = Program.builder("take").param("who", INT32).param("arg", INT32)
        .region("slots", INT64).region("counters", INT32).region("taken", INT64)
        .output("item", INT64)
        .let("head", read("counters", of(0)))
        .let("tail", read("counters", of(1)))
        .ifThen(ref("tail").sub(ref("head")).le(of(0)), b -> b.retry())
        .let("v", read("slots", slotOf("head", capacity)))
        .write("taken", ref("arg"), ref("v"))
        .write("counters", of(0), ref("head").add(1))
        .set("item", ref("v"))
        .build();
    return List.of(put, take);
  }

  public static ProgramSet set(TxBatch pc, boolean builder) {
    int capacity = ProducerConsumerWorkload.Param.CAPACITY.of(pc);
    return builder ? ProgramSet.compile(built(capacity)) : ProgramSet.parse(text(capacity));
  }

  public static ProgramBatch batch(TxBatch pc, ProgramSet programs) {
    return ProgramBatch.builder(programs).types(pc.types())
        .int32("who", pc.columns()[0]).int32("arg", pc.columns()[1])
        .grid(pc.threadsPerBlock(), pc.blocks()).build();
  }
}
