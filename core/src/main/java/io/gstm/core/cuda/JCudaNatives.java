package io.gstm.core.cuda;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import jcuda.driver.JCudaDriver;

/**
 * Loads JCuda's driver binding once per JVM, while holding a lock file that every JVM of the host
 * takes for the same purpose. JCuda copies its native library to the temporary directory when
 * the file is not there yet and then loads it; two JVMs starting at once (two Spark executors of
 * one node) race on that file, and the second maps a library the first is still writing: the
 * executor died with SIGBUS in the dynamic loader on the two-GPU node. Under the lock the first
 * JVM writes and loads the whole file before the next one looks.
 */
final class JCudaNatives {
  /** The lock file, in the directory JCuda extracts to. */
  static final String LOCK_FILE = "gstm-jcuda-natives.lock";
  private static volatile boolean loaded;

  private JCudaNatives() {}

  /**
   * Loads the binding (JCudaDriver's class initialiser), at most once; errors are those of the
   * load itself (a machine without the CUDA driver gets JCuda's UnsatisfiedLinkError).
   */
  static void load() {
    if (loaded) {
      return;
    }
    synchronized (JCudaNatives.class) {
      if (loaded) {
        return;
      }
      Path lock = Path.of(System.getProperty("java.io.tmpdir"), LOCK_FILE);
      FileChannel channel = null;
      FileLock held = null;
      try {
        channel = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        held = channel.lock();
      } catch (IOException | RuntimeException e) {
        // No lock to be had (a read-only temporary directory): load as JCuda alone would.
      }
      try {
        JCudaDriver.setExceptionsEnabled(true); // runs the class initialiser, which loads
        loaded = true;
      } finally {
        try {
          if (held != null) {
            held.release();
          }
          if (channel != null) {
            channel.close();
          }
        } catch (IOException e) {
          // Released when the channel closes, at the latest when the JVM exits.
        }
      }
    }
  }
}
