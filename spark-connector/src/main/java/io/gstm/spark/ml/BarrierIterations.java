package io.gstm.spark.ml;

import io.gstm.core.batch.TxCounts;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.ml.TxKMeans.Block;
import io.gstm.spark.ml.TxKMeans.Partial;
import io.gstm.spark.ml.TxKMeans.Progress;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import org.apache.spark.BarrierTaskContext;
import scala.collection.Iterator;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * Every iteration of a fit over several point sets inside one barrier stage: each task updates
 * its point set on its executor's engine, the tasks exchange their partials with
 * {@link BarrierTaskContext#allGather} (k sums and counts each, a few kB), and every task merges
 * them in partition order and takes the same Lloyd step, so all of them hold the same centroids
 * and stop at the same iteration. No Spark job per iteration: on GPUs an iteration's update
 * takes milliseconds, a job tens of them. Partition 0 returns the fit's progress. The partials
 * are merged in partition order, as the per-iteration jobs merge up to
 * {@link TxKMeans#DRIVER_MERGE_MAX_PARTITIONS} partitions, so both give the same centroids.
 */
final class BarrierIterations extends AbstractFunction1<Iterator<Block>, Iterator<Progress>>
    implements Serializable {
  private static final long serialVersionUID = 1L;
  private final long run;
  private final double[] centroids;
  private final int k;
  private final int dims;
  private final GstmSettings settings;
  private final int maxIter;
  private final double tolSq;

  BarrierIterations(long run, double[] centroids, int k, int dims, GstmSettings settings,
      int maxIter, double tolSq) {
    this.run = run;
    this.centroids = centroids;
    this.k = k;
    this.dims = dims;
    this.settings = settings;
    this.maxIter = maxIter;
    this.tolSq = tolSq;
  }

  @Override
  public Iterator<Progress> apply(Iterator<Block> blocks) {
    BarrierTaskContext task = BarrierTaskContext.get();
    int partition = task.partitionId();
    Block b = blocks.next();
    Progress f = new Progress(centroids);
    while (f.iterations < maxIter && !f.converged) {
      Partial mine = TxKMeans.update(run, partition, b, f.centroids, k, dims, settings);
      f.advance(merged(task.allGather(encode(partition, mine))), tolSq);
    }
    List<Progress> out = partition == 0 ? List.of(f) : Collections.emptyList();
    return CollectionConverters.asScala(out.iterator());
  }

  /** The partials of every task, merged in partition order. */
  static Partial merged(String[] messages) {
    Partial[] byPartition = new Partial[messages.length];
    for (String m : messages) {
      int colon = m.indexOf(':');
      byPartition[Integer.parseInt(m.substring(0, colon))] = decode(m.substring(colon + 1));
    }
    Partial total = byPartition[0];
    for (int i = 1; i < byPartition.length; i++) {
      total = Partial.merge(total, byPartition[i]);
    }
    return total;
  }

  /**
   * "partition:base64" of the partial's fields: allGather carries strings. Written field by
   * field, not with Java serialization, whose reader resolves classes through a loader that on
   * an executor may not see the jars the application shipped.
   */
  static String encode(int partition, Partial p) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(p.k);
      out.writeInt(p.dims);
      out.writeInt(p.sums.length);
      for (double v : p.sums) {
        out.writeDouble(v);
      }
      out.writeInt(p.counts.length);
      for (long c : p.counts) {
        out.writeLong(c);
      }
      out.writeDouble(p.cost);
      out.writeLong(p.tx.transactions());
      out.writeLong(p.tx.commits());
      out.writeLong(p.tx.aborts());
      out.writeLong(p.kernelNanos);
      out.writeBoolean(p.fellBack);
      out.writeInt(p.engines.size());
      for (String e : p.engines) {
        out.writeUTF(e);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return partition + ":" + Base64.getEncoder().encodeToString(bytes.toByteArray());
  }

  static Partial decode(String base64) {
    Partial p = new Partial();
    try (DataInputStream in = new DataInputStream(
        new ByteArrayInputStream(Base64.getDecoder().decode(base64)))) {
      p.k = in.readInt();
      p.dims = in.readInt();
      p.sums = new double[in.readInt()];
      for (int i = 0; i < p.sums.length; i++) {
        p.sums[i] = in.readDouble();
      }
      p.counts = new long[in.readInt()];
      for (int i = 0; i < p.counts.length; i++) {
        p.counts[i] = in.readLong();
      }
      p.cost = in.readDouble();
      p.tx = new TxCounts(in.readLong(), in.readLong(), in.readLong());
      p.kernelNanos = in.readLong();
      p.fellBack = in.readBoolean();
      for (int n = in.readInt(); n > 0; n--) {
        p.engines.add(in.readUTF());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p;
  }
}
