package io.gstm.dist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A standalone cluster on this machine (a master and workers whose executors are JVMs of their
 * own), started and stopped by {@code scripts/spark-cluster.sh}; its logs and pids are in its
 * work folder.
 */
final class StandaloneCluster implements AutoCloseable {
  private final Path script;
  private final Path work;
  private final String masterUrl;

  private StandaloneCluster(Path script, Path work, String masterUrl) {
    this.script = script;
    this.work = work;
    this.masterUrl = masterUrl;
  }

  /**
   * Starts {@code workers} workers of {@code cores} cores and {@code memory} each; worker i
   * offers GPU i to Spark's scheduler when {@code gpus} (a resource the applications may ask
   * for; no GPU is needed to hand out its address).
   */
  static StandaloneCluster start(Path sparkHome, Path work, int workers, int cores,
      String memory, boolean gpus) {
    Path script = Path.of(System.getProperty("gstm.clusterScript", "../scripts/spark-cluster.sh"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String out = run(List.of(script.toString(), "start", "--spark-home", sparkHome.toString(),
        "--work", work.toString(), "--workers", String.valueOf(workers), "--cores",
        String.valueOf(cores), "--memory", memory, "--java", java, "--gpus-per-worker",
        gpus ? "1" : "0"));
    String url = out.lines().filter(l -> l.startsWith("spark://")).findFirst()
        .orElseThrow(() -> new IllegalStateException("spark-cluster.sh printed no master URL: "
            + out));
    return new StandaloneCluster(script, work, url);
  }

  String masterUrl() {
    return masterUrl;
  }

  @Override
  public void close() {
    run(List.of(script.toString(), "stop", "--work", work.toString()));
  }

  /** Runs the script; its output, or an error with it when it fails. */
  private static String run(List<String> command) {
    try {
      Process p = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(3, TimeUnit.MINUTES) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " failed:\n" + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + command, e);
    }
  }
}
