package io.gstm.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A superstep's host work in slices on all cores: the boundary updates applied ({@link
 * Supersteps#applyUpdates}) and the changed vertices addressed ({@link Supersteps#address}) give
 * what one pass gives, in the same order, for slices of any size.
 */
class SuperstepSlicesTest {
  private static final int ONE_PASS = Integer.MAX_VALUE;

  @ParameterizedTest(name = "slices of {0}")
  @ValueSource(ints = {1, 7, 64, 1000})
  void updatesApplyAsInOnePass(int slice) {
    SplittableRandom rnd = new SplittableRandom(slice);
    int n = 5_000;
    double[] start = rnd.doubles(n, 0, 100).toArray();
    int[] globalOf = IntStream.range(0, n).map(v -> 3 * v + 1).toArray();
    List<StepOutput.Messages> lists = new ArrayList<>();
    for (int sender = 0; sender < 3; sender++) {
      // Each sender names a vertex at most once; senders overlap.
      int[] ids = IntStream.range(0, n).filter(v -> rnd.nextInt(3) == 0)
          .map(v -> globalOf[v]).toArray();
      double[] vals = rnd.doubles(ids.length, 0, 120).toArray();
      lists.add(new StepOutput.Messages(ids, vals));
    }
    lists.add(new StepOutput.Messages(null, null));
    double[] sliced = start.clone();
    double[] whole = start.clone();
    int[] active = Supersteps.applyUpdates(sliced, id -> (id - 1) / 3, lists, slice);
    int[] expected = Supersteps.applyUpdates(whole, id -> (id - 1) / 3, lists, ONE_PASS);
    assertThat(sliced).isEqualTo(whole);
    assertThat(active).isEqualTo(expected).doesNotHaveDuplicates().isNotEmpty();
    boolean[] lowered = new boolean[n];
    for (int a : active) {
      lowered[a] = true;
    }
    for (int v = 0; v < n; v++) {
      assertThat(lowered[v]).as("vertex %d", v).isEqualTo(sliced[v] < start[v]);
    }
  }

  @ParameterizedTest(name = "slices of {0}")
  @ValueSource(ints = {1, 7, 1000})
  void anUpdateOfAVertexNotHeldFails(int slice) {
    List<StepOutput.Messages> lists = List.of(new StepOutput.Messages(
        IntStream.range(0, 2_000).toArray(), new double[2_000]));
    assertThatThrownBy(() -> Supersteps.applyUpdates(new double[2_000], id -> {
      if (id == 1_500) {
        throw new IllegalStateException("vertex " + id + ", which it does not hold");
      }
      return id;
    }, lists, slice)).hasMessageContaining("vertex 1500, which it does not hold");
  }

  @ParameterizedTest(name = "slices of {0}")
  @ValueSource(ints = {1, 5, 64, 1000})
  void changedVerticesAreAddressedAsInOnePass(int slice) {
    SplittableRandom rnd = new SplittableRandom(100 + slice);
    int n = 4_000;
    int partitions = 4;
    int[] changed = IntStream.range(0, n).filter(v -> rnd.nextBoolean()).toArray();
    int[] globalIds = IntStream.range(0, n).map(v -> 7 * v).toArray();
    double[] values = rnd.doubles(n).toArray();
    Supersteps.Needs needs = (q, c) -> q != 2 && (c * 31 + q) % 3 != 0;
    Supersteps.Lists sliced = Supersteps.address(changed, partitions, needs, globalIds, values,
        slice);
    for (int q = 0; q < partitions; q++) {
      int target = q;
      int[] expectIds = IntStream.of(changed).filter(c -> needs.test(target, c))
          .map(c -> globalIds[c]).toArray();
      if (expectIds.length == 0) {
        assertThat(sliced.ids()[q]).isNull();
        continue;
      }
      double[] expectValues = IntStream.of(changed).filter(c -> needs.test(target, c))
          .mapToDouble(c -> values[c]).toArray();
      assertThat(sliced.ids()[q]).isEqualTo(expectIds);
      assertThat(sliced.values()[q]).isEqualTo(expectValues);
    }
  }
}
