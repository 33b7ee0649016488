package io.gstm.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.spark.exec.TaskHub;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Subgraphs' tasks trading boundary updates straight with each other: four tasks, each sending
 * every other one frames larger than the conversion chunk at once (no two wait on each other),
 * and empty frames; each receives exactly what was addressed to it, superstep by superstep; a
 * lost peer is an error naming it, not a hang.
 */
class BoundaryMeshTest {
  private static final int P = 4;

  /** The updates task {@code from} sends task {@code to} in superstep {@code step}. */
  private static StepOutput.Messages frame(int from, int to, int step) {
    int n = step == 1 && to == 0 ? 0 : 300_000 + 1_000 * from + to; // > a chunk of ids
    int[] ids = new int[n];
    double[] values = new double[n];
    for (int i = 0; i < n; i++) {
      ids[i] = i * P + from;
      values[i] = step * 1e6 + from * 1e3 + to + i / 7.0;
    }
    return new StepOutput.Messages(ids, values);
  }

  private static StepOutput output(int from, int step) {
    int[][] ids = new int[P][];
    double[][] values = new double[P][];
    for (int to = 0; to < P; to++) {
      if (to != from) {
        StepOutput.Messages m = frame(from, to, step);
        ids[to] = m.ids();
        values[to] = m.values();
      }
    }
    return new StepOutput(from, new double[0], ids, values, new StepStats());
  }

  @Test
  void everyTaskGetsWhatEachOtherSentItEverySuperstep() throws Exception {
    try (TaskHub hub = new TaskHub("127.0.0.1", "127.0.0.1", P, "test", "subgraph")) {
      List<CompletableFuture<Void>> tasks = new ArrayList<>();
      for (int t = 0; t < P; t++) {
        int me = t;
        tasks.add(CompletableFuture.runAsync(() -> {
          try (TaskHub.Link link = new TaskHub.Link(hub.address(), me, "test", "subgraph");
              BoundaryMesh mesh = BoundaryMesh.open(link, hub.address().token(), me, P)) {
            for (int step = 0; step < 3; step++) {
              mesh.send(output(me, step));
              List<StepOutput.Messages> in = mesh.receive();
              assertThat(in).hasSize(P - 1);
              int k = 0;
              for (int from = 0; from < P; from++) {
                if (from != me) {
                  StepOutput.Messages want = frame(from, me, step);
                  assertThat(in.get(k).ids()).isEqualTo(want.ids());
                  assertThat(in.get(k).values()).isEqualTo(want.values());
                  k++;
                }
              }
            }
          } catch (IOException | InterruptedException e) {
            throw new RuntimeException(e);
          }
        }));
      }
      hub.awaitAll(new CompletableFuture<Void>(), 10_000, "");
      ArrayList<String> listening = new ArrayList<>();
      for (int q = 0; q < P; q++) {
        listening.add((String) hub.read(q));
      }
      for (int q = 0; q < P; q++) {
        hub.write(q, listening);
      }
      CompletableFuture.allOf(tasks.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void aLostPeerIsAnErrorNamingIt() throws Exception {
    try (TaskHub hub = new TaskHub("127.0.0.1", "127.0.0.1", 2, "test", "subgraph")) {
      CompletableFuture<BoundaryMesh> other = CompletableFuture.supplyAsync(() -> {
        try {
          TaskHub.Link link = new TaskHub.Link(hub.address(), 1, "test", "subgraph");
          return BoundaryMesh.open(link, hub.address().token(), 1, 2);
        } catch (IOException e) {
          throw new RuntimeException(e);
        }
      });
      CompletableFuture<Void> task = CompletableFuture.runAsync(() -> {
        try (TaskHub.Link link = new TaskHub.Link(hub.address(), 0, "test", "subgraph");
            BoundaryMesh mesh = BoundaryMesh.open(link, hub.address().token(), 0, 2)) {
          mesh.receive();
        } catch (IOException | InterruptedException e) {
          throw new RuntimeException(e);
        }
      });
      hub.awaitAll(new CompletableFuture<Void>(), 10_000, "");
      ArrayList<String> listening = new ArrayList<>(List.of((String) hub.read(0),
          (String) hub.read(1)));
      hub.write(0, listening);
      hub.write(1, listening);
      other.get(10, TimeUnit.SECONDS).close(); // its task died before sending
      assertThatThrownBy(() -> task.get(10, TimeUnit.SECONDS))
          .hasRootCauseInstanceOf(java.io.EOFException.class)
          .hasMessageContaining("subgraph 0 lost subgraph 1's task");
    }
  }
}
