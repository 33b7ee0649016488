package io.gstm.dist;

import java.nio.file.Files;
import java.nio.file.Path;

/** The one jar this module packages, as the build names it (system property gstm.dist.jar). */
final class DistJar {
  private DistJar() {}

  static Path path() {
    String p = System.getProperty("gstm.dist.jar");
    if (p == null) {
      throw new IllegalStateException("system property gstm.dist.jar is not set: run the "
          + "cluster tests through Maven (mvn verify -pl spark-dist), which packages the jar "
          + "first");
    }
    Path jar = Path.of(p);
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no jar at " + jar + ": run mvn package first");
    }
    return jar;
  }
}
