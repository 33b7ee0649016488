package io.gstm.spark.graph;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.RmatGenerator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Times {@link LocalGraph#build(int, int, List, boolean, boolean)} on one big subgraph as a GPU
 * executor builds it: R-MAT edges as the Spark benchmark makes them (seed 42, weights for
 * shortest paths only), cut into 16 chunks like the input partitions (plus the source's vertex
 * chunk for shortest paths). A few warm-up builds, then the median of the timed ones, with the
 * median of each phase that {@link ParallelBuild} and {@link ParallelCsr} log at debug. Not a
 * test; run with the module's test classpath, e.g.
 * {@code java -Xmx8g -cp ... io.gstm.spark.graph.BuildProbe [case ...]} with cases among
 * sssp18, cc18, sssp22, cc22, sssp18deg, cc18deg (default: all but cc18deg); system properties
 * {@code probe.warmup} (3), {@code probe.runs} (7), {@code probe.verify} (true: the arrays once
 * against the sequential build), {@code probe.gc} (true: a full GC before each timed build;
 * false: builds in a row, young collections falling where they fall).
 */
public final class BuildProbe {
  private static final List<String> LINES = new ArrayList<>();
  private static boolean gc;
  private static final Pattern PHASE = Pattern.compile("([a-z][a-z ]*?) ([0-9.]+) ms");

  private BuildProbe() {}

  public static void main(String[] args) {
    capturePhases();
    List<String> cases = args.length > 0 ? Arrays.asList(args)
        : List.of("sssp18", "cc18", "sssp22", "cc22", "sssp18deg");
    int warmup = Integer.getInteger("probe.warmup", 3);
    int runs = Integer.getInteger("probe.runs", 7);
    boolean verify = Boolean.parseBoolean(System.getProperty("probe.verify", "true"));
    gc = Boolean.parseBoolean(System.getProperty("probe.gc", "true"));
    System.out.printf("probe: %d processors, common pool parallelism %d, max heap %d MB%n",
        Runtime.getRuntime().availableProcessors(), ForkJoinPool.getCommonPoolParallelism(),
        Runtime.getRuntime().maxMemory() >> 20);
    for (String c : cases) {
      boolean sssp = c.startsWith("sssp");
      int scale = c.contains("22") ? 22 : 18;
      boolean byDegree = c.endsWith("deg");
      List<EdgeChunk> chunks = chunks(scale, sssp);
      run(c, chunks, !sssp, byDegree, warmup, runs, verify);
    }
  }

  /** The benchmark's edges in 16 chunks, as 16 input partitions are read. */
  static List<EdgeChunk> chunks(int scale, boolean weighted) {
    EdgeList g = RmatGenerator.generate(scale, 1 << 22, 42, weighted);
    int m = g.edgeCount();
    List<EdgeChunk> chunks = new ArrayList<>();
    for (int k = 0; k < 16; k++) {
      int from = (int) ((long) m * k / 16);
      int to = (int) ((long) m * (k + 1) / 16);
      chunks.add(EdgeChunk.adopt(Arrays.copyOfRange(g.src(), from, to),
          Arrays.copyOfRange(g.dst(), from, to),
          weighted ? Arrays.copyOfRange(g.weights(), from, to) : null, "s", "d", "w"));
    }
    if (weighted) {
      EdgeChunk source = new EdgeChunk(true); // the source vertex, as SubgraphPlanner adds it
      source.addVertex(0);
      chunks.add(source.trim());
    }
    return chunks;
  }

  private static void run(String name, List<EdgeChunk> chunks, boolean undirected,
      boolean byDegree, int warmup, int runs, boolean verify) {
    LocalGraph g = null;
    for (int i = 0; i < warmup; i++) {
      g = LocalGraph.build(0, 1, chunks, undirected, byDegree);
    }
    double[] total = new double[runs];
    Map<String, double[]> phases = new LinkedHashMap<>();
    for (int i = 0; i < runs; i++) {
      if (gc) {
        System.gc(); // each build starts from the same heap, not in the previous one's garbage
      }
      synchronized (LINES) {
        LINES.clear();
      }
      long t0 = System.nanoTime();
      g = LocalGraph.build(0, 1, chunks, undirected, byDegree);
      total[i] = (System.nanoTime() - t0) / 1e6;
      synchronized (LINES) {
        for (String line : LINES) {
          Matcher x = PHASE.matcher(line.substring(line.lastIndexOf(':') + 1));
          while (x.find()) {
            phases.computeIfAbsent(x.group(1), k -> new double[runs])[i] =
                Double.parseDouble(x.group(2));
          }
        }
      }
    }
    StringBuilder s = new StringBuilder();
    for (Map.Entry<String, double[]> e : phases.entrySet()) {
      s.append(String.format("%s %.1f, ", e.getKey(), median(e.getValue())));
    }
    System.out.printf("probe: %-9s %d vertices, %d edges kept: median build %.1f ms (min %.1f,"
        + " max %.1f) of %d; phases (ms): %s%n", name, g.size(), g.edgeCount(), median(total),
        Arrays.stream(total).min().orElse(0), Arrays.stream(total).max().orElse(0), runs, s);
    if (verify) {
      boolean weighted = chunks.get(0).w != null;
      LocalGraph e = LocalGraph.build(0, 1, EdgeChunk.concat(chunks, weighted), undirected,
          byDegree);
      boolean same = Arrays.equals(e.globalIds, g.globalIds)
          && Arrays.equals(e.sortedGlobalIds(), g.sortedGlobalIds())
          && Arrays.equals(e.offsets, g.offsets) && Arrays.equals(e.targets(), g.targets())
          && (e.weights() == null ? g.weights() == null : g.weights() != null
              && Arrays.equals(bits(e.weights()), bits(g.weights())));
      for (int v : e.sortedGlobalIds()) {
        same &= e.local(v) == g.local(v);
      }
      System.out.printf("probe: %-9s same arrays as the sequential build: %s%n", name, same);
    }
  }

  private static long[] bits(double[] w) {
    return Arrays.stream(w).mapToLong(Double::doubleToRawLongBits).toArray();
  }

  private static double median(double[] x) {
    double[] s = x.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  /** Collects the debug lines of the parallel build's phases. */
  private static void capturePhases() {
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    Configuration cfg = ctx.getConfiguration();
    AbstractAppender a = new AbstractAppender("probe", null, null, true, Property.EMPTY_ARRAY) {
      @Override
      public void append(LogEvent event) {
        synchronized (LINES) {
          LINES.add(event.getMessage().getFormattedMessage());
        }
      }
    };
    a.start();
    cfg.addAppender(a);
    for (Class<?> c : new Class<?>[] {ParallelBuild.class, ParallelCsr.class}) {
      LoggerConfig lc = new LoggerConfig(c.getName(), Level.DEBUG, false);
      lc.addAppender(a, Level.DEBUG, null);
      cfg.addLogger(c.getName(), lc);
    }
    ctx.updateLoggers();
  }
}
