package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * JCuda's native library is loaded under the host's lock file: while another JVM holds it (an
 * executor writing the library out), loading waits, whatever its outcome (no driver here).
 */
class JCudaNativesTest {
  /** Holds the lock file for the given milliseconds, saying "held" once it has it. */
  public static final class Holder {
    public static void main(String[] args) throws Exception {
      try (FileChannel c = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE,
              StandardOpenOption.WRITE);
          FileLock l = c.lock()) {
        System.out.println("held");
        System.out.flush();
        Thread.sleep(Long.parseLong(args[1]));
      }
    }
  }

  @Test
  void loadingWaitsWhileAnotherJvmHoldsTheLock() throws Exception {
    Path lock = Path.of(System.getProperty("java.io.tmpdir"), JCudaNatives.LOCK_FILE);
    String java = ProcessHandle.current().info().command().orElse("java");
    Process holder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        Holder.class.getName(), lock.toString(), "1500").redirectErrorStream(true).start();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(
        holder.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(out.readLine()).isEqualTo("held");
      long t0 = System.nanoTime();
      try {
        JCudaNatives.load();
      } catch (LinkageError noDriver) {
        // A machine without the CUDA driver: the load failed, after the lock was free.
      }
      long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assumeThat(waited).as("the binding was loaded before this test").isPositive();
      assertThat(waited).as("ms waited for the other JVM's lock").isGreaterThan(1_000);
    } finally {
      holder.destroy();
      holder.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
