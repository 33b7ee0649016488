package io.gstm.spark.exec;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.InputAdapter;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.WholeStageCodegenExec;

/**
 * The column batches under a Dataset's rows: a Parquet scan or a cached relation yields batches
 * that Spark turns into rows one by one; reading the batches' columns in bulk skips a row
 * object per record (edges, points).
 */
public final class ColumnarSource {
  private ColumnarSource() {}

  /**
   * The physical plan of {@code ds} below its conversion to rows, when it yields column batches;
   * else null (the caller reads rows). The caller checks the plan's output columns.
   */
  public static SparkPlan of(Dataset<?> ds) {
    SparkPlan plan;
    try {
      plan = ds.queryExecution().executedPlan();
    } catch (RuntimeException e) {
      return null;
    }
    while (true) {
      if (plan instanceof WholeStageCodegenExec x) {
        plan = x.child();
      } else if (plan instanceof ColumnarToRowExec x) {
        plan = x.child();
      } else if (plan instanceof InputAdapter x) {
        plan = x.child();
      } else {
        break;
      }
    }
    return plan.supportsColumnar() ? plan : null;
  }
}
