package io.gstm.spark.state;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** A local session whose tasks may fail and be retried, and no test hook left behind. */
abstract class StateSession {
  @BeforeAll
  static void start() {
    TxStateTest.spark = TxStateTest.session();
  }

  @AfterAll
  static void stop() {
    TxStateTest.spark.stop();
  }

  @AfterEach
  void noHooks() {
    TxStateHooks.reset();
  }
}
