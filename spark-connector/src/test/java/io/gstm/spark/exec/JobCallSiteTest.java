package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;

import example.CallerOutsideGstm;
import io.gstm.spark.SharedSpark;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * gstm's jobs are named after the user's line that started them, both forms of Spark's call
 * site set (so that Spark walks no stack for them), a call site set already is kept, and none
 * is left behind.
 */
class JobCallSiteTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();

  private static SparkContext sc() {
    return session.spark().sparkContext();
  }

  private static RDD<Integer> small() {
    return JavaSparkContext.fromSparkContext(sc()).parallelize(List.of(1, 2, 3), 2).rdd();
  }

  /** The short and long call sites of the jobs {@code run} starts. */
  private static List<String> sitesOf(Runnable run) throws Exception {
    List<String> sites = new CopyOnWriteArrayList<>();
    SparkListener listener = new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart start) {
        sites.add(start.properties().getProperty(JobCallSite.SHORT) + " | "
            + start.properties().getProperty(JobCallSite.LONG));
      }
    };
    sc().addSparkListener(listener);
    try {
      run.run();
      sc().listenerBus().waitUntilEmpty();
    } finally {
      sc().removeSparkListener(listener);
    }
    return sites;
  }

  @Test
  void aJobIsNamedAfterTheUsersLine() throws Exception {
    RDD<Integer> rdd = small();
    List<String> sites = sitesOf(() -> CallerOutsideGstm.count(rdd));
    String site = "count at CallerOutsideGstm\\.java:\\d+";
    assertThat(sites).singleElement().asString().matches(site + " \\| " + site);
    assertThat(sc().getLocalProperty(JobCallSite.SHORT)).isNull();
    assertThat(sc().getLocalProperty(JobCallSite.LONG)).isNull();
  }

  @Test
  void anEnclosingOperationsNameIsKept() throws Exception {
    RDD<Integer> rdd = small();
    List<String> sites = sitesOf(() -> CallerOutsideGstm.countInside(rdd, "TxState 'x' apply"));
    assertThat(sites).singleElement().asString()
        .startsWith("TxState 'x' apply at CallerOutsideGstm.java:");
    assertThat(sc().getLocalProperty(JobCallSite.SHORT)).isNull();
  }

  @Test
  void aCallSiteTheUserSetIsKept() throws Exception {
    RDD<Integer> rdd = small();
    sc().setCallSite("the user's own name");
    try {
      List<String> sites = sitesOf(() -> CallerOutsideGstm.count(rdd));
      assertThat(sites).singleElement().asString().startsWith("the user's own name | ");
    } finally {
      sc().clearCallSite();
    }
  }
}
