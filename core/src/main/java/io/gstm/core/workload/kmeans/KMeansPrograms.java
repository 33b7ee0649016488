package io.gstm.core.workload.kmeans;

import static io.gstm.core.program.Term.of;
import static io.gstm.core.program.Term.read;
import static io.gstm.core.program.Term.ref;
import static io.gstm.core.program.ValueType.FLOAT64;
import static io.gstm.core.program.ValueType.INT32;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.program.Program;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.Term;
import java.util.List;

/**
 * The k-means centroid update written as a transaction program, with the meaning of
 * {@link KMeansWorkload}: for each word j of its slice of centroid c's accumulator record it
 * sums the block's points assigned to c (1 for the count, coordinate j - 1 for a sum, points in
 * order) and adds the sum to the word. Columns {@code c}, {@code first}, {@code count},
 * {@code w0}; regions {@code accumulators} and the shared {@code points} and {@code assignment}.
 */
public final class KMeansPrograms {
  private KMeansPrograms() {}

  /**
   * @param dims point dimensions
   * @param slice words per transaction (the batch's set capacity)
   * @param maxPoints the most points one transaction's block holds
   */
  public static String text(int dims, int slice, int maxPoints) {
    return """
        program add(c: int32, first: int32, count: int32, w0: int32)
            regions accumulators: float64, shared points: float64, shared assignment: int32
        {
          let base = c * ({DIMS} + 1);
          for j in w0 .. min(w0 + {SLICE}, {DIMS} + 1) max {SLICE} {
            var s: float64 = 0.0;
            for p in first .. first + count max {MAXP} {
              if (assignment[p] == c) {
                if (j == 0) {
                  s = s + 1.0;
                } else {
                  s = s + points[p * {DIMS} + j - 1];
                }
              }
            }
            accumulators[base + j] = accumulators[base + j] + s;
          }
        }
        """.replace("{DIMS}", Integer.toString(dims)).replace("{SLICE}", Integer.toString(slice))
        .replace("{MAXP}", Integer.toString(maxPoints));
  }

  public static List<Program> built(int dims, int slice, int maxPoints) {
    Term word = ref("base").add(ref("j"));
    Program add = Program.builder("add").param("c", INT32).param("first", INT32)
        .param("count", INT32).param("w0", INT32)
        .region("accumulators", FLOAT64).sharedRegion("points", FLOAT64)
        .sharedRegion("assignment", INT32)
        .let("base", ref("c").mul(dims + 1))
        .forRange("j", ref("w0"), ref("w0").add(slice).min(of(dims + 1)), slice, outer -> outer
            .var("s", FLOAT64, of(0.0))
            .forRange("p", ref("first"), ref("first").add(ref("count")), maxPoints, inner ->
                inner.ifThen(read("assignment", ref("p")).eq(ref("c")), hit -> hit
                    .ifThenElse(ref("j").eq(0),
                        count -> count.set("s", ref("s").add(of(1.0))),
                        sum -> sum.set("s", ref("s").add(read("points",
                            ref("p").mul(dims).add(ref("j")).sub(1)))))))
            .write("accumulators", word, read("accumulators", word).add(ref("s"))))
        .build();
    return List.of(add);
  }

  /** The program for a hand-written k-means batch (its dims and capacity). */
  public static ProgramSet set(TxBatch kmeans, int maxPoints, boolean builder) {
    int dims = KMeansWorkload.Param.DIMS.of(kmeans);
    int slice = kmeans.capacity();
    return builder ? ProgramSet.compile(built(dims, slice, maxPoints))
        : ProgramSet.parse(text(dims, slice, maxPoints));
  }

  public static ProgramBatch batch(TxBatch kmeans, ProgramSet programs) {
    int[][] cols = kmeans.columns();
    return ProgramBatch.builder(programs).types(kmeans.types())
        .int32("c", cols[KMeansWorkload.Column.CENTROID.index()])
        .int32("first", cols[KMeansWorkload.Column.FIRST_POINT.index()])
        .int32("count", cols[KMeansWorkload.Column.POINT_COUNT.index()])
        .int32("w0", cols[KMeansWorkload.Column.FIRST_WORD.index()])
        .grid(kmeans.threadsPerBlock(), kmeans.blocks()).build();
  }
}
