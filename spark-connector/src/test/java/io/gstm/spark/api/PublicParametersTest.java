package io.gstm.spark.api;

import io.gstm.core.testing.PublicApi;
import io.gstm.spark.conf.GstmConf;
import org.junit.jupiter.api.Test;

/**
 * No public constructor or method of the connector takes more than {@value #MAX} positional
 * parameters (issue 18), as core's own test holds core: settings and reports group their values
 * in small records, so a call or a report reads with names.
 */
class PublicParametersTest {
  static final int MAX = PublicApi.MAX_PARAMETERS;

  @Test
  void noPublicMemberOfTheConnectorTakesMoreThanSeven() {
    PublicApi.assertNoMemberTakesTooMany("the connector", GstmConf.class, "io.gstm.spark");
  }
}
