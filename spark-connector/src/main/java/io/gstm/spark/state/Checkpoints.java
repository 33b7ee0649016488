package io.gstm.spark.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * A state's checkpoint: {@code PATH/epoch-E/} holds the rows at epoch E as Parquet, and
 * {@code PATH/_gstm_state.json}, written after the rows (so a checkpoint that failed half way
 * leaves the previous one in force), the epoch, the applied batch ids, the key and value
 * columns, the partitioning and the algorithm. Older epoch folders are removed afterwards.
 */
final class Checkpoints {
  static final String META = "_gstm_state.json";
  static final int FORMAT = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  private Checkpoints() {}

  /** Writes the checkpoint; returns the folder of its rows. */
  static String write(SparkSession spark, String path, Dataset<Row> rows, StateSchema schema,
      long epoch, Set<Long> batchIds) {
    String data = "epoch-" + epoch;
    Path root = new Path(path);
    rows.write().mode(SaveMode.Overwrite).parquet(new Path(root, data).toString());
    ObjectNode m = JSON.createObjectNode();
    m.put("format", FORMAT);
    m.put("name", schema.name());
    m.put("epoch", epoch);
    m.put("data", data);
    m.put("key", schema.keyColumn());
    m.put("keyType", schema.intKey() ? "int" : "long");
    ArrayNode values = m.putArray("values");
    for (int r = 0; r < schema.values(); r++) {
      values.addObject().put("name", schema.valueNames().get(r))
          .put("type", schema.valueTypes().get(r).keyword());
    }
    m.put("partitions", schema.partitions());
    if (schema.partitioner().isRange()) {
      ArrayNode b = m.putArray("rangeBounds");
      Arrays.stream(schema.partitioner().bounds()).forEach(b::add);
    }
    m.put("algorithm", schema.algorithm());
    m.put("insertsAndDeletes", schema.insertsAndDeletes());
    m.put("maxRowsPerPartition", schema.maxRows());
    ArrayNode ids = m.putArray("batchIds");
    batchIds.forEach(ids::add);
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    try {
      FileSystem fs = root.getFileSystem(conf);
      Path tmp = new Path(root, META + ".tmp");
      try (OutputStream out = fs.create(tmp, true)) {
        out.write(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(m)
            .getBytes(StandardCharsets.UTF_8));
      }
      Path meta = new Path(root, META);
      fs.delete(meta, false);
      if (!fs.rename(tmp, meta)) {
        throw new IOException("could not rename " + tmp + " to " + meta);
      }
      for (FileStatus st : fs.listStatus(root)) {
        String n = st.getPath().getName();
        if (st.isDirectory() && n.startsWith("epoch-") && !n.equals(data)) {
          fs.delete(st.getPath(), true);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("gstm state '" + schema.name() + "': writing the "
          + "checkpoint at " + path + " failed", e);
    }
    return new Path(root, data).toString();
  }

  static TxState restore(SparkSession spark, String path, String name) {
    Path root = new Path(path);
    JsonNode m;
    try {
      FileSystem fs = root.getFileSystem(spark.sparkContext().hadoopConfiguration());
      Path meta = new Path(root, META);
      if (!fs.exists(meta)) {
        throw new IllegalArgumentException("path: " + path + " holds no gstm state checkpoint ("
            + META + " not found)");
      }
      try (InputStream in = fs.open(meta)) {
        m = JSON.readTree(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the gstm state checkpoint at " + path, e);
    }
    if (m.path("format").asInt() != FORMAT) {
      throw new IllegalArgumentException("path: checkpoint format " + m.path("format")
          + " at " + path + ", this version reads " + FORMAT);
    }
    String data = new Path(root, m.get("data").asText()).toString();
    Dataset<Row> rows = spark.read().parquet(data);
    String[] values = new String[m.get("values").size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = m.get("values").get(i).get("name").asText();
    }
    TxState.Builder b = TxState.from(rows).key(m.get("key").asText()).values(values)
        .algorithm(m.get("algorithm").asText())
        .name(name != null ? name : m.get("name").asText());
    if (m.path("insertsAndDeletes").asBoolean(false)) {
      b.insertsAndDeletes();
    }
    if (m.has("maxRowsPerPartition")) {
      b.maxRowsPerPartition(m.get("maxRowsPerPartition").asInt());
    }
    if (m.has("rangeBounds")) {
      long[] bounds = new long[m.get("rangeBounds").size()];
      for (int i = 0; i < bounds.length; i++) {
        bounds[i] = m.get("rangeBounds").get(i).asLong();
      }
      b.rangePartitioned(bounds);
    } else {
      b.partitions(m.get("partitions").asInt());
    }
    Set<Long> ids = new TreeSet<>();
    m.get("batchIds").forEach(n -> ids.add(n.asLong()));
    long epoch = m.get("epoch").asLong();
    // The epochs committed after the checkpoint, when their changes were logged next to it.
    java.util.TreeMap<Long, Long> logged = EpochLog.committedAfter(path, epoch,
        spark.sparkContext().hadoopConfiguration());
    logged.values().stream().filter(java.util.Objects::nonNull).forEach(ids::add);
    TxState s = b.create(epoch, ids, logged.isEmpty() ? null : logged.keySet().stream()
        .mapToLong(Long::longValue).toArray(), path);
    s.restoredFrom(path, data, epoch);
    return s;
  }
}
