package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.Engine;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.SemanticCases;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.Verdict;
import io.gstm.core.workload.vacation.VacationConfig;
import io.gstm.core.workload.vacation.VacationVerifier;
import io.gstm.core.workload.vacation.VacationWorkload;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Vacation on the GPU and the JVM engine, same seeded batches, both policies: no room type is
 * overbooked, histories are serializable and replay to the final state.
 */
@EnabledIfGpu
class CudaVacationTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpuAndJvm(4);

  static Stream<Arguments> cases() {
    return SemanticCases.cases(500, new double[] {0, 0.5, 1}, new int[] {1, 4},
        (ratio, stride, seed) -> VacationConfig.builder().customers(2_000).roomTypes(50)
            .roomsPerType(5).semanticRatio(ratio).lockCoverage(stride).grid(128, 2)
            .txPerThread(1 + (int) (seed % 16)).seed(seed).build());
  }

  private static boolean check(Engine engine, VacationConfig cfg, TxBatch batch,
      RunOptions options) {
    try (TxStore store = engine.createStore(cfg.layout())) {
      int[] rooms = cfg.initialRooms();
      int[] booked = cfg.initialCustomers();
      store.writeInt32(0, rooms);
      store.writeInt32(1, booked);
      BatchResult r = engine.run(store, batch, options);
      int[] finalRooms = store.readInt32(0);
      int[] finalBooked = store.readInt32(1);
      Verdict v =
          VacationVerifier.verify(rooms, booked, batch, r, finalRooms, finalBooked);
      assertThat(v.ok()).as("%s %s", engine.name(), v).isTrue();
      if (options.history()) {
        HistoryChecker.Verdict h = HistoryChecker.check(r.history());
        assertThat(h.serializable()).as("%s %s", engine.name(), h.violations()).isTrue();
        assertThat(VacationVerifier.replay(rooms, booked, batch, r, h.serialOrder(), finalRooms,
            finalBooked).ok()).isTrue();
      }
      return true;
    }
  }

  @ParameterizedTest
  @MethodSource("cases")
  void sameBatchBothEnginesVerified(VacationConfig cfg, SemanticPolicy policy, boolean presort) {
    TxBatch batch = SemanticCases.presortedIf(presort, cfg.batch(), VacationWorkload.INSTANCE);
    // Sold-out rooms may never free up: a small limit keeps impossible bookings short.
    RunOptions options = RunOptions.defaults().withHistory(true).withPolicy(policy)
        .withSemanticLimit(Math.min(policy.defaultLimit(), 300));
    assertThat(check(engines.gpu(), cfg, batch, options)).isTrue();
    assertThat(check(engines.jvm(), cfg, batch, options)).isTrue();
  }

  @Test
  void paperSizedHotelVerifies() {
    VacationConfig cfg = VacationConfig.paper(224, 30, 32, 1, 1, 3);
    assertThat(check(engines.gpu(), cfg, cfg.batch(), RunOptions.defaults())).isTrue();
  }
}
