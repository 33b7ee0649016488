package io.gstm.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Properties;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the one jar holds: gstm and JCuda with its driver native; nothing the cluster has. */
class DistJarIT {
  private static List<String> entries;

  @BeforeAll
  static void read() throws IOException {
    try (JarFile jar = new JarFile(DistJar.path().toFile())) {
      entries = jar.stream().map(ZipEntry::getName).toList();
    }
  }

  @Test
  void holdsTheConnectorTheEngineAndTheKernelsProperties() {
    assertThat(entries).contains(
        "io/gstm/spark/state/TxState.class",
        "io/gstm/spark/graph/GraphRelaxation.class",
        "io/gstm/spark/ml/TxKMeans.class",
        "io/gstm/spark/exec/ExecutorEngines.class",
        "io/gstm/core/cuda/CudaEngine.class",
        "io/gstm/core/jvm/JvmEngine.class",
        "gstm/kernels/kernels.properties");
  }

  /** Built with kernels (-Pkernels, or on a GPU machine), every fatbin listed is inside. */
  @Test
  void holdsEveryKernelItsPropertiesList() throws IOException {
    Properties built = new Properties();
    try (JarFile jar = new JarFile(DistJar.path().toFile());
        InputStream in = jar.getInputStream(jar.getEntry("gstm/kernels/kernels.properties"))) {
      built.load(in);
    }
    for (String kernel : built.getProperty("kernels", "").split(",")) {
      if (!kernel.isBlank()) {
        assertThat(entries).contains("gstm/kernels/" + kernel.trim() + ".fatbin");
      }
    }
  }

  @Test
  void holdsJCudaUnrelocatedWithItsLinuxDriverNative() {
    assertThat(entries).contains("jcuda/driver/JCudaDriver.class", "jcuda/LibUtils.class")
        .anyMatch(e -> e.matches("lib/libJCudaDriver-[0-9.]+-linux-x86_64\\.so"));
    assertThat(entries).noneMatch(e -> e.contains("/jcuda/") && e.endsWith(".class"));
  }

  @Test
  void leavesOutWhatTheClusterProvides() {
    assertThat(entries).noneMatch(e -> e.startsWith("org/apache/spark/")
        || e.startsWith("scala/") || e.startsWith("org/slf4j/")
        || e.startsWith("org/apache/logging/") || e.startsWith("org/apache/hadoop/")
        || e.startsWith("org/roaringbitmap/"));
  }

  @Test
  void leavesOutTheJCudaNativesGstmDoesNotCall() {
    assertThat(entries).noneMatch(e -> e.startsWith("lib/") && !e.equals("lib/")
        && !e.contains("libJCudaDriver-"));
  }
}
