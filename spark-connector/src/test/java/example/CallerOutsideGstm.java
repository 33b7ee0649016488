package example;

import io.gstm.spark.exec.JobCallSite;
import io.gstm.spark.exec.PlainRdds;
import org.apache.spark.rdd.RDD;

/** A user's code, outside gstm's packages, for the call-site tests (JobCallSiteTest). */
public final class CallerOutsideGstm {
  private CallerOutsideGstm() {}

  public static long count(RDD<?> rdd) {
    return PlainRdds.count(rdd);
  }

  public static long countInside(RDD<?> rdd, String what) {
    return JobCallSite.around(rdd.context(), what, CallerOutsideGstm.class,
        () -> PlainRdds.count(rdd));
  }
}
