package io.gstm.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.RmatGenerator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * Times the build of one big subgraph (issue 16: a GPU executor's only task): today's path,
 * the 16 input chunks copied into one and built sequentially, against the list build on the
 * common pool. R-MAT 2^18 vertices, 4.2 M weighted edges, numbered by global id as on GPU
 * executors. Runs only with {@code GSTM_BENCH=1}:
 * {@code GSTM_BENCH=1 mvn -o -pl spark-connector -am verify -Dtest=LocalGraphBuildBench
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@EnabledIfEnvironmentVariable(named = "GSTM_BENCH", matches = "1")
class LocalGraphBuildBench {
  @Test
  void sequentialAgainstParallel() {
    Configurator.setLevel(ParallelBuild.class.getName(), Level.DEBUG); // the phases
    Configurator.setLevel(ParallelCsr.class.getName(), Level.DEBUG);
    int scale = Integer.getInteger("gstm.bench.scale", 18);
    EdgeList g = RmatGenerator.generate(scale, 1 << 22, 42, true);
    List<EdgeChunk> chunks = new ArrayList<>();
    int m = g.edgeCount();
    for (int k = 0; k < 16; k++) {
      int from = (int) ((long) m * k / 16);
      int to = (int) ((long) m * (k + 1) / 16);
      chunks.add(EdgeChunk.adopt(Arrays.copyOfRange(g.src(), from, to),
          Arrays.copyOfRange(g.dst(), from, to), Arrays.copyOfRange(g.weights(), from, to),
          "s", "d", "w"));
    }
    System.out.printf("bench: 2^%d vertices, %d edges in 16 chunks, common pool parallelism %d,"
        + " %d processors%n", scale, m, ForkJoinPool.getCommonPoolParallelism(),
        Runtime.getRuntime().availableProcessors());
    for (boolean undirected : new boolean[] {false, true}) {
      for (int round = 0; round < 2; round++) { // the first round warms up
        long concat = Long.MAX_VALUE;
        long sequential = Long.MAX_VALUE;
        long parallel = Long.MAX_VALUE;
        LocalGraph a = null;
        LocalGraph b = null;
        for (int run = 0; run < 5; run++) {
          long t0 = System.nanoTime();
          EdgeChunk all = EdgeChunk.concat(chunks, true);
          long t1 = System.nanoTime();
          a = LocalGraph.build(0, 1, all, undirected, false);
          long t2 = System.nanoTime();
          b = LocalGraph.build(0, 1, chunks, undirected, false);
          long t3 = System.nanoTime();
          concat = Math.min(concat, t1 - t0);
          sequential = Math.min(sequential, t2 - t1);
          parallel = Math.min(parallel, t3 - t2);
        }
        for (int threads : new int[] {1, 2}) {
          ForkJoinPool pool = new ForkJoinPool(threads); // its tasks' parallel streams run in it
          long best = Long.MAX_VALUE;
          for (int run = 0; run < 3; run++) {
            long t0 = System.nanoTime();
            pool.submit(() -> LocalGraph.build(0, 1, chunks, undirected, false)).join();
            best = Math.min(best, System.nanoTime() - t0);
          }
          pool.shutdown();
          System.out.printf("bench: undirected %s, round %d: parallel list build in a pool of %d"
              + " threads %d ms%n", undirected, round, threads, best / 1_000_000);
        }
        assertThat(b.targets()).isEqualTo(a.targets());
        assertThat(b.offsets).isEqualTo(a.offsets);
        System.out.printf("bench: undirected %s, round %d (best of 5): concat %d ms + sequential"
            + " build %d ms = %d ms; parallel list build %d ms (%d vertices, %d edges kept)%n",
            undirected, round, concat / 1_000_000, sequential / 1_000_000,
            (concat + sequential) / 1_000_000, parallel / 1_000_000, b.size(), b.edgeCount());
      }
    }
  }
}
