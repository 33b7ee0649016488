package io.gstm.spark.exec;

/**
 * Bad input found by a task reaches the driver wrapped in a SparkException (a job failure):
 * the operations rethrow it as the IllegalArgumentException it was, with its message, so that
 * a caller sees the same error whether a check ran on the driver or in a task.
 */
public final class TaskErrors {
  private TaskErrors() {}

  /**
   * The first IllegalArgumentException among {@code e}'s causes, as one thrown here (the job
   * failure kept as its cause); otherwise {@code e} itself, thrown as it is, checked or not.
   */
  public static RuntimeException badInput(Exception e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IllegalArgumentException bad) {
        return t == e ? bad : new IllegalArgumentException(bad.getMessage(), e);
      }
    }
    return TaskErrors.<RuntimeException>rethrow(e);
  }

  @SuppressWarnings("unchecked")
  private static <T extends Exception> T rethrow(Exception e) throws T {
    throw (T) e;
  }
}
