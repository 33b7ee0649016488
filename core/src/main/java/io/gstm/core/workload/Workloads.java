package io.gstm.core.workload;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.workload.bank.BankWorkload;
import io.gstm.core.workload.graph.GraphRelaxWorkload;
import io.gstm.core.workload.kmeans.KMeansWorkload;
import io.gstm.core.workload.pc.ProducerConsumerWorkload;
import io.gstm.core.workload.vacation.VacationWorkload;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The workloads engines know, by name. */
public final class Workloads {
  private static final Map<String, Workload> BY_NAME =
      Map.of(BankWorkload.NAME, BankWorkload.INSTANCE,
          VacationWorkload.NAME, VacationWorkload.INSTANCE,
          ProducerConsumerWorkload.NAME, ProducerConsumerWorkload.INSTANCE,
          GraphRelaxWorkload.NAME, GraphRelaxWorkload.INSTANCE,
          KMeansWorkload.NAME, KMeansWorkload.INSTANCE);

  private Workloads() {}

  /** Names of every workload; each has a semantic kernel module on the GPU. */
  public static Set<String> names() {
    return new TreeSet<>(BY_NAME.keySet());
  }

  /** The workload a batch names; an unknown name is an IllegalArgumentException. */
  public static Workload of(TxBatch batch) {
    Workload w = BY_NAME.get(batch.workload());
    if (w == null) {
      throw new IllegalArgumentException(
          "workload: unknown workload '" + batch.workload() + "', known: " + BY_NAME.keySet());
    }
    return w;
  }
}
