package io.gstm.dist;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A folder that stands in for a Spark distribution: its {@code jars/} links to the Spark jars
 * this build resolved (listed by the build in {@code gstm.sparkClasspath}), which is all a
 * worker needs to build its executors' class path.
 */
final class SparkHome {
  private SparkHome() {}

  /** Makes {@code home/jars} (again) and returns {@code home}. */
  static Path linked(Path home) {
    String listed = System.getProperty("gstm.sparkClasspath");
    if (listed == null) {
      throw new IllegalStateException("system property gstm.sparkClasspath is not set: run the "
          + "cluster tests through Maven");
    }
    try {
      Path jars = home.resolve("jars");
      Files.createDirectories(jars);
      try (var old = Files.list(jars)) {
        for (Path p : (Iterable<Path>) old::iterator) {
          Files.delete(p);
        }
      }
      String classpath = Files.readString(Path.of(listed)).trim();
      for (String jar : classpath.split(File.pathSeparator)) {
        Path target = Path.of(jar);
        Files.createSymbolicLink(jars.resolve(target.getFileName()), target);
      }
      return home;
    } catch (IOException e) {
      throw new UncheckedIOException("linking Spark's jars into " + home, e);
    }
  }
}
