package io.gstm.spark.exec;

/** For tests in other packages: plays an executor restart after a simulated lost GPU context. */
public final class LostDevices {
  private LostDevices() {}

  public static void forget() {
    ExecutorEngines.forgetLost();
  }
}
