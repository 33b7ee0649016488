package io.gstm.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvVariant;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Integer overflow as an outcome, on any engine and algorithm: one program whose {@code kind}
 * column picks an operation (checked {@code + - * / %}, negation and abs on int32 and int64,
 * their wrapping twins, constant expressions the compiler must leave to run time, a loop up to
 * int32's largest value, the booking that multiplied into a wallet), and rows at and
 * around the limits. What each row must do comes from Java's {@code Math.*Exact}, an oracle
 * independent of the engines' own definitions.
 */
public final class OverflowCases {
  private OverflowCases() {}

  /** The wallet's balance: the booking of 2 at 2^30 would wrap it round to -2,147,482,994. */
  static final int WALLET = 2_147_483_000;

  public static final String PROGRAM = """
      program arith(kind: int32, a: int32, b: int32, x: int64, y: int64)
          regions r: int32
          outputs v32: int32, v64: int64
      {
        r[0] = r[0] + 1;  // a write that a transaction ending OVERFLOW must not leave behind
        if (kind == 0) { v32 = a + b; }
        if (kind == 1) { v32 = a - b; }
        if (kind == 2) { v32 = a * b; }
        if (kind == 3) { v32 = -a; }
        if (kind == 4) { v32 = abs(a); }
        if (kind == 5) { v32 = a / b; }
        if (kind == 6) { v32 = a % b; }
        if (kind == 7) { v64 = x + y; }
        if (kind == 8) { v64 = x - y; }
        if (kind == 9) { v64 = x * y; }
        if (kind == 10) { v64 = -x; }
        if (kind == 11) { v64 = abs(x); }
        if (kind == 12) { v64 = x / y; }
        if (kind == 13) { v64 = x % y; }
        if (kind == 14) { v64 = a + y; }
        if (kind == 15) { v32 = wrapping_add(a, b); }
        if (kind == 16) { v32 = wrapping_sub(a, b); }
        if (kind == 17) { v32 = wrapping_mul(a, b); }
        if (kind == 18) { v64 = wrapping_add(x, y); }
        if (kind == 19) { v64 = wrapping_sub(x, y); }
        if (kind == 20) { v64 = wrapping_mul(x, y); }
        if (kind == 21) { v32 = 2147483647 + 1; }
        if (kind == 22) { v32 = -(-2147483648); }
        if (kind == 23) { v64 = abs(-9223372036854775808L); }
        if (kind == 24) { for i in a .. b max 3 { v32 = i; } }
        if (kind == 25) { r[1] = r[1] - a * b; }
      }
      """;
  /** Kinds whose result is the int64 output. */
  private static final java.util.Set<Integer> WIDE = java.util.Set.of(7, 8, 9, 10, 11, 12, 13,
      14, 18, 19, 20, 23);
  private static final int KINDS = 26;

  /** One transaction: its columns, and the outcome and result it must have. */
  public record Row(int kind, int a, int b, long x, long y, Outcome outcome, long result) {
    @Override
    public String toString() {
      return "kind " + kind + " (" + a + ", " + b + ", " + x + ", " + y + ") -> " + outcome
          + (outcome == Outcome.COMMITTED ? " " + result : "");
    }
  }

  /** The algorithms that run programs, on either engine. */
  public static Stream<Arguments> algorithms() {
    List<Arguments> out = new ArrayList<>();
    out.add(Arguments.of(AlgorithmArgs.named(Algorithm.prStm())));
    for (CsmvVariant v : CsmvVariant.values()) {
      out.add(Arguments.of(AlgorithmArgs.named(Algorithm.csmv(4).withVariant(v))));
    }
    out.add(Arguments.of(AlgorithmArgs.named(Algorithm.gpuStm())));
    out.add(Arguments.of(AlgorithmArgs.named(Algorithm.blocking())));
    out.add(Arguments.of(AlgorithmArgs.named(Algorithm.obstructionFree())));
    return out.stream();
  }

  /** Hand-picked rows at the limits, then {@code random} rows over values near them. */
  public static List<Row> rows(long seed, int random) {
    int max = Integer.MAX_VALUE;
    int min = Integer.MIN_VALUE;
    long lmax = Long.MAX_VALUE;
    long lmin = Long.MIN_VALUE;
    List<Row> rows = new ArrayList<>(List.of(
        row(0, max, 1, 0, 0), row(0, max - 1, 1, 0, 0), row(0, min, -1, 0, 0),
        row(1, min, 1, 0, 0), row(1, 0, min, 0, 0), row(1, -1, min, 0, 0),
        row(2, 65536, 32768, 0, 0), row(2, -65536, 32768, 0, 0), row(2, 46341, 46341, 0, 0),
        row(2, min, -1, 0, 0), row(3, min, 0, 0, 0), row(3, max, 0, 0, 0),
        row(4, min, 0, 0, 0), row(4, -max, 0, 0, 0),
        row(5, min, -1, 0, 0), row(5, min, 1, 0, 0), row(5, 7, 0, 0, 0),
        row(6, min, -1, 0, 0),
        row(7, 0, 0, lmax, 1), row(7, 0, 0, lmax - 1, 1), row(7, 0, 0, lmin, -1),
        row(8, 0, 0, lmin, 1), row(8, 0, 0, 0, lmin), row(8, 0, 0, -1, lmin),
        row(9, 0, 0, 1L << 32, 1L << 31), row(9, 0, 0, -(1L << 32), 1L << 31),
        row(9, 0, 0, 3037000500L, 3037000500L), row(9, 0, 0, lmin, -1), row(9, 0, 0, -1, lmin),
        row(10, 0, 0, lmin, 0), row(10, 0, 0, lmax, 0), row(11, 0, 0, lmin, 0),
        row(11, 0, 0, -lmax, 0), row(12, 0, 0, lmin, -1), row(12, 0, 0, lmin, 2),
        row(13, 0, 0, lmin, -1), row(14, 1, 0, 0, lmax), row(14, -1, 0, 0, lmax),
        row(15, max, 1, 0, 0), row(16, min, 1, 0, 0), row(17, 65536, 65536, 0, 0),
        row(18, 0, 0, lmax, 1), row(19, 0, 0, lmin, 1), row(20, 0, 0, 1L << 32, 1L << 32),
        row(21, 0, 0, 0, 0), row(22, 0, 0, 0, 0), row(23, 0, 0, 0, 0),
        row(24, max - 3, max, 0, 0), row(25, 2, 1 << 30, 0, 0)));
    int[] near32 = {0, 1, -1, 2, -2, 3, max, min, max - 1, min + 1, 46340, 46341, -46341,
        65535, 65536, 1 << 30, -(1 << 30)};
    long[] near64 = {0, 1, -1, 2, -2, lmax, lmin, lmax - 1, lmin + 1, 3037000499L, 3037000500L,
        -3037000500L, 1L << 32, 1L << 62, -(1L << 62), max, min};
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int i = 0; i < random; i++) {
      int kind = rnd.nextInt(21); // the kinds with operands
      int a = rnd.nextBoolean() ? near32[rnd.nextInt(near32.length)] : rnd.nextInt();
      int b = rnd.nextBoolean() ? near32[rnd.nextInt(near32.length)] : rnd.nextInt();
      long x = rnd.nextBoolean() ? near64[rnd.nextInt(near64.length)] : rnd.nextLong();
      long y = rnd.nextBoolean() ? near64[rnd.nextInt(near64.length)] : rnd.nextLong();
      rows.add(row(kind, a, b, x, y));
    }
    return rows;
  }

  private static Row row(int kind, int a, int b, long x, long y) {
    Outcome outcome = Outcome.COMMITTED;
    long result = 0;
    try {
      result = oracle(kind, a, b, x, y);
    } catch (ArithmeticException e) {
      boolean byZero = (kind == 5 || kind == 6) && b == 0 || (kind == 12 || kind == 13) && y == 0;
      outcome = byZero ? Outcome.DIVIDE_BY_ZERO : Outcome.OVERFLOW;
    }
    return new Row(kind, a, b, x, y, outcome, result);
  }

  /** What {@link #PROGRAM} computes for a kind, by Java's library; ArithmeticException: it faults. */
  private static long oracle(int kind, int a, int b, long x, long y) {
    return switch (kind) {
      case 0 -> Math.addExact(a, b);
      case 1 -> Math.subtractExact(a, b);
      case 2 -> Math.multiplyExact(a, b);
      case 3 -> Math.negateExact(a);
      case 4 -> Math.absExact(a);
      case 5 -> Math.toIntExact((long) a / b); // only MIN / -1 leaves the int32 range
      case 6 -> a % b;
      case 7 -> Math.addExact(x, y);
      case 8 -> Math.subtractExact(x, y);
      case 9 -> Math.multiplyExact(x, y);
      case 10 -> Math.negateExact(x);
      case 11 -> Math.absExact(x);
      case 12 -> divideExact(x, y);
      case 13 -> x % y;
      case 14 -> Math.addExact((long) a, y);
      case 15 -> a + b;
      case 16 -> a - b;
      case 17 -> a * b;
      case 18 -> x + y;
      case 19 -> x - y;
      case 20 -> x * y;
      case 21 -> Math.addExact(Integer.MAX_VALUE, 1);
      case 22 -> Math.negateExact(Integer.MIN_VALUE);
      case 23 -> Math.absExact(Long.MIN_VALUE);
      case 24 -> b - 1; // the last trip's i, with b = a + 3
      case 25 -> Math.subtractExact(WALLET, Math.multiplyExact(a, b));
      default -> throw new IllegalArgumentException("kind " + kind);
    };
  }

  /** Math.divideExact is Java 18's. */
  private static long divideExact(long x, long y) {
    if (x == Long.MIN_VALUE && y == -1) {
      throw new ArithmeticException("long overflow");
    }
    return x / y;
  }

  /** The rows as a batch of {@link #PROGRAM}. */
  public static ProgramBatch batch(List<Row> rows) {
    int n = rows.size();
    int[] kind = new int[n];
    int[] a = new int[n];
    int[] b = new int[n];
    long[] x = new long[n];
    long[] y = new long[n];
    for (int t = 0; t < n; t++) {
      Row r = rows.get(t);
      kind[t] = r.kind();
      a[t] = r.a();
      b[t] = r.b();
      x[t] = r.x();
      y[t] = r.y();
    }
    return ProgramBatch.builder(ProgramSet.parse(PROGRAM)).all("arith", n).int32("kind", kind)
        .int32("a", a).int32("b", b).int64("x", x).int64("y", y).grid(32, 2).build();
  }

  /**
   * Runs the rows on {@code engine} under {@code algorithm} and checks each row's outcome and
   * result, and that the store holds the committed rows' marks and nothing else: every row adds
   * 1 to r[0] before it computes, and the booking's wallet r[1] stays as it was.
   */
  public static void assertRun(Engine engine, Algorithm algorithm, List<Row> rows) {
    assertThat(rows.stream().mapToInt(Row::kind).distinct().count()).isEqualTo(KINDS);
    try (TxStore store = engine.createStore(StoreLayout.of(
        new RegionSpec("r", RegionType.INT32, 2, 1)), algorithm)) {
      store.writeInt32(0, new int[] {0, WALLET});
      ProgramResult result = engine.run(store, batch(rows), RunOptions.defaults());
      int committed = 0;
      for (int t = 0; t < rows.size(); t++) {
        Row row = rows.get(t);
        assertThat(result.outcome(t)).as("%s on %s", row, algorithm.label())
            .isEqualTo(row.outcome());
        if (row.outcome() == Outcome.COMMITTED) {
          committed++;
          String output = WIDE.contains(row.kind()) ? "v64" : "v32";
          if (row.kind() != 25) {
            assertThat(result.outputLong(t, output)).as("%s on %s", row, algorithm.label())
                .isEqualTo(row.result());
          }
        }
      }
      assertThat(result.outcomeCounts()).containsKey(Outcome.OVERFLOW);
      assertThat(store.readInt32(0)).containsExactly(committed, WALLET);
    }
  }
}
