package io.gstm.spark.exec;

import static io.gstm.core.engine.GpuUnavailableReason.DRIVER_BINDING_RESOURCE;
import static io.gstm.core.engine.GpuUnavailableReason.NATIVES_JAR;
import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.engine.GpuUnavailableReason;
import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The connector's job class path ({@code target/lib}: what {@code ./gstm-spark} and the Spark
 * staging script put on the driver and executors) carries JCuda's natives; without them every
 * executor falls back to the JVM engine. The build writes that class path before the tests
 * ({@code target/job-classpath.txt}, same scope as {@code target/lib}, which is copied only at
 * package).
 */
class JcudaNativesTest {
  private static List<Path> jobClassPath() throws IOException {
    String file = System.getProperty("gstm.jobClasspath");
    assertThat(file).as("system property gstm.jobClasspath, set by the Maven build").isNotNull();
    List<Path> entries = new ArrayList<>();
    for (String entry : Files.readString(Path.of(file)).trim().split(File.pathSeparator)) {
      if (!entry.isEmpty()) {
        entries.add(Path.of(entry));
      }
    }
    return entries;
  }

  @Test
  void jobClassPathCarriesTheNativesJar() throws IOException {
    assertThat(jobClassPath()).extracting(p -> p.getFileName().toString())
        .as("target/lib lacks %s: no executor could load JCuda", NATIVES_JAR)
        .contains(NATIVES_JAR);
  }

  @Test
  void jcudaFindsItsDriverBindingOnTheJobClassPath() throws IOException {
    List<URL> urls = new ArrayList<>();
    for (Path p : jobClassPath()) {
      try {
        urls.add(p.toUri().toURL());
      } catch (MalformedURLException e) {
        throw new IllegalStateException(p.toString(), e);
      }
    }
    try (URLClassLoader jobs = new URLClassLoader(urls.toArray(URL[]::new),
        ClassLoader.getPlatformClassLoader())) {
      assertThat(jobs.getResource("jcuda/LibUtils.class")).as("JCuda's classes").isNotNull();
      assertThat(jobs.getResource(DRIVER_BINDING_RESOURCE))
          .as("%s on the job class path (from %s)", DRIVER_BINDING_RESOURCE, NATIVES_JAR)
          .isNotNull();
    }
  }

  @Test
  void testClassPathCarriesTheNatives() {
    assertThat(GpuUnavailableReason.nativesOnClassPath()).as(DRIVER_BINDING_RESOURCE).isTrue();
  }
}
