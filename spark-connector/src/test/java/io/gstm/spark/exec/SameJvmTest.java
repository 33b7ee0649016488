package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.spark.SharedSpark;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Task results in local mode hand their arrays to the driver by reference ({@link SameJvm}):
 * through Spark's own result path the driver gets the very arrays the tasks made, and nothing
 * stays held; outside a task the arrays are serialized as usual.
 */
class SameJvmTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();

  /** The arrays each task made, by partition, to compare identities on the driver. */
  static final Map<Integer, long[]> MADE = new ConcurrentHashMap<>();

  /** A task result holding one large array, by reference when the task is in the driver's JVM. */
  static final class Result implements Serializable {
    private static final long serialVersionUID = 1L;
    final int partition;
    transient long[] data;
    transient boolean inProcess;

    Result(int partition, long[] data, boolean inProcess) {
      this.partition = partition;
      this.data = data;
      this.inProcess = inProcess;
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
      out.defaultWriteObject();
      SameJvm.writeHeld(out, inProcess, new Object[] {data});
      if (!inProcess) {
        PackedArrays.writeLongs(out, data);
      }
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      Object[] held = SameJvm.readHeld(in);
      data = held != null ? (long[]) held[0] : PackedArrays.readLongs(in);
    }
  }

  @Test
  void localTasksHandTheirArraysOverByReference() {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(session.spark().sparkContext());
    int before = SameJvm.held();
    List<Result> results = jsc.parallelize(List.of(0, 1, 2, 3), 4).mapPartitionsWithIndex(
        (i, it) -> {
          long[] data = new long[1 << 20];
          java.util.Arrays.fill(data, i);
          MADE.put(i, data);
          return List.of(new Result(i, data, SameJvm.taskInDriverJvm())).iterator();
        }, true).collect();
    assertThat(results).hasSize(4);
    for (Result r : results) {
      assertThat(r.data).isSameAs(MADE.get(r.partition));
    }
    assertThat(SameJvm.held()).isEqualTo(before);
  }

  @Test
  void outsideATaskTheArraysAreSerialized() throws Exception {
    assertThat(SameJvm.taskInDriverJvm()).isFalse();
    long[] data = {1, 2, 3};
    Result copy = roundTrip(new Result(7, data, false));
    assertThat(copy.data).containsExactly(1, 2, 3).isNotSameAs(data);
    // Marked by reference: the same array, and nothing left held.
    int before = SameJvm.held();
    Result same = roundTrip(new Result(8, data, true));
    assertThat(same.data).isSameAs(data);
    assertThat(SameJvm.held()).isEqualTo(before);
  }

  @Test
  void aKeyTakenTwiceOrNeverHeldIsAnError() {
    long key = SameJvm.hold(new Object[0]);
    assertThat(SameJvm.held()).isPositive();
    assertThatThrownBy(() -> {
      SameJvm.take(key);
      SameJvm.take(key);
    }).isInstanceOf(IOException.class).hasMessageContaining("not held here");
  }

  private static Result roundTrip(Result r) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(r);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (Result) in.readObject();
    }
  }
}
