package io.gstm.spark.state;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The epochs committed after a checkpoint, next to it: {@code CHECKPOINT/log/epoch-E/part-P}
 * holds the rows partition P changed in epoch E (keys, then each region's new values), written
 * by the epoch's last job; {@code _COMMITTED} in the epoch's folder, written by the driver once
 * the epoch committed, makes it count. A lost partition is rebuilt from the checkpoint's rows
 * and these changes, in epoch order.
 */
final class EpochLog {
  static final String DIR = "log";
  static final String COMMITTED = "_COMMITTED";

  private EpochLog() {}

  static Path epochDir(String checkpoint, long epoch) {
    return new Path(new Path(checkpoint, DIR), "epoch-" + epoch);
  }

  /** Writes partition {@code partition}'s changes of {@code epoch} (replacing a retry's). */
  static void write(String checkpoint, long epoch, int partition, Exchange.KeyValues rows,
      Configuration conf) {
    Path file = new Path(epochDir(checkpoint, epoch), "part-" + partition);
    try {
      FileSystem fs = file.getFileSystem(conf);
      try (DataOutputStream out = fs.create(file, true)) {
        int n = rows.keys().length;
        out.writeInt(rows.bits().length);
        out.writeInt(n);
        for (long k : rows.keys()) {
          out.writeLong(k);
        }
        for (long[] region : rows.bits()) {
          for (int i = 0; i < n; i++) {
            out.writeLong(region[i]);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing the epoch log " + file, e);
    }
  }

  /** Partition {@code partition}'s changes of a committed epoch, or null when not committed. */
  static Exchange.KeyValues read(String checkpoint, long epoch, int partition,
      Configuration conf) {
    Path dir = epochDir(checkpoint, epoch);
    try {
      FileSystem fs = dir.getFileSystem(conf);
      if (!fs.exists(new Path(dir, COMMITTED))) {
        return null;
      }
      try (DataInputStream in = fs.open(new Path(dir, "part-" + partition))) {
        int regions = in.readInt();
        int n = in.readInt();
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
          keys[i] = in.readLong();
        }
        long[][] bits = new long[regions][n];
        for (int r = 0; r < regions; r++) {
          for (int i = 0; i < n; i++) {
            bits[r][i] = in.readLong();
          }
        }
        return new Exchange.KeyValues(keys, new boolean[n], bits);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the epoch log " + dir, e);
    }
  }

  /** Marks {@code epoch} committed, with its batch id (the driver, after the epoch's jobs). */
  static void commit(String checkpoint, long epoch, Long batchId, Configuration conf) {
    Path marker = new Path(epochDir(checkpoint, epoch), COMMITTED);
    try (DataOutputStream out = marker.getFileSystem(conf).create(marker, true)) {
      out.writeBoolean(batchId != null);
      out.writeLong(batchId == null ? 0 : batchId);
    } catch (IOException e) {
      throw new UncheckedIOException("committing the epoch log " + marker, e);
    }
  }

  /**
   * The committed epochs after {@code epoch} in the log next to {@code checkpoint}, ascending,
   * each with its batch id (or null).
   */
  static java.util.TreeMap<Long, Long> committedAfter(String checkpoint, long epoch,
      Configuration conf) {
    java.util.TreeMap<Long, Long> out = new java.util.TreeMap<>();
    Path log = new Path(checkpoint, DIR);
    try {
      FileSystem fs = log.getFileSystem(conf);
      if (!fs.exists(log)) {
        return out;
      }
      for (FileStatus st : fs.listStatus(log)) {
        String n = st.getPath().getName();
        if (!n.startsWith("epoch-")) {
          continue;
        }
        long e = Long.parseLong(n.substring(6));
        Path marker = new Path(st.getPath(), COMMITTED);
        if (e > epoch && fs.exists(marker)) {
          try (DataInputStream in = fs.open(marker)) {
            boolean has = in.readBoolean();
            long id = in.readLong();
            out.put(e, has ? id : null);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the epoch log " + log, e);
    }
    return out;
  }

  /** Removes the log of epochs up to {@code epoch} (a newer checkpoint holds them). */
  static void truncate(String checkpoint, long epoch, Configuration conf) {
    Path log = new Path(checkpoint, DIR);
    try {
      FileSystem fs = log.getFileSystem(conf);
      if (!fs.exists(log)) {
        return;
      }
      for (FileStatus st : fs.listStatus(log)) {
        String n = st.getPath().getName();
        if (n.startsWith("epoch-") && Long.parseLong(n.substring(6)) <= epoch) {
          fs.delete(st.getPath(), true);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("truncating the epoch log " + log, e);
    }
  }
}
