package io.gstm.cli;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.batch.TxBatches;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.Verdict;
import io.gstm.core.workload.vacation.VacationConfig;
import io.gstm.core.workload.vacation.VacationVerifier;
import io.gstm.core.workload.vacation.VacationWorkload;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gstm vacation}: one batch of hotel bookings and cancellations, verified. */
@Command(name = "vacation", mixinStandardHelpOptions = true,
    description = "Run one vacation batch (book/cancel rooms of limited capacity) and verify it.")
final class VacationCommand extends EngineCommand {
  @Mixin SemanticOptions semantic = new SemanticOptions();

  @Option(names = "--customers", defaultValue = "" + VacationConfig.PAPER_CUSTOMERS,
      description = "Default ${DEFAULT-VALUE}.")
  int customers;

  @Option(names = "--room-types", defaultValue = "" + VacationConfig.PAPER_ROOM_TYPES,
      description = "Default ${DEFAULT-VALUE}.")
  int roomTypes;

  @Option(names = "--rooms-per-type", defaultValue = "" + VacationConfig.PAPER_ROOMS_PER_TYPE,
      description = "Default ${DEFAULT-VALUE}.")
  int roomsPerType;

  @Option(names = "--semantic-ratio", defaultValue = "1",
      description = "Share of the batch in book/cancel pairs (a cancel may come before "
          + "its booking), 0..1 "
          + "(default ${DEFAULT-VALUE}).")
  double semanticRatio;

  @Mixin LockCoverageOption coverage = new LockCoverageOption();

  @Mixin GridOptions grid = new GridOptions(224, 30, 16);

  @Mixin SeedOption seed = new SeedOption(1);

  @Option(names = "--history", description = "Check serializability and replay the serial order.")
  boolean history;

  @Override
  Run prepare() {
    RunOptions options = semantic.apply(RunOptions.defaults().withHistory(history));
    VacationConfig cfg = VacationConfig.builder().customers(customers).roomTypes(roomTypes)
        .roomsPerType(roomsPerType).semanticRatio(semanticRatio).lockCoverage(coverage.lockCoverage)
        .grid(grid.threadsPerBlock(), grid.blocks).txPerThread(grid.txPerThread).seed(seed.seed())
        .build();
    TxBatch batch = semantic.presort
        ? TxBatches.presort(cfg.batch(), VacationWorkload.INSTANCE.orderingTags()) : cfg.batch();
    int[] rooms = cfg.initialRooms();
    int[] booked = cfg.initialCustomers();
    return e -> {
      try (TxStore store = e.createStore(cfg.layout())) {
        store.writeInt32(0, rooms);
        store.writeInt32(1, booked);
        BatchResult r = e.run(store, batch, options);
        int[] finalRooms = store.readInt32(0);
        int[] finalBooked = store.readInt32(1);
        System.out.printf("vacation: %,d customers, %,d room types x %d rooms, %.0f%% semantic, "
                + "%s, lock coverage %d, %,d transactions%n", customers, roomTypes,
            roomsPerType, semanticRatio * 100, semantic.describe(), coverage.lockCoverage,
            batch.txCount());
        Reports.printOutcome(r);
        Verdict v =
            VacationVerifier.verify(rooms, booked, batch, r, finalRooms, finalBooked);
        System.out.println("verifier (no room type overbooked, counts exact): " + v);
        boolean ok = v.ok();
        if (history) {
          ok &= Reports.checkHistory(r.history(), order -> {
            Verdict replay = VacationVerifier.replay(rooms, booked, batch, r,
                order, finalRooms, finalBooked);
            System.out.println("serial replay: " + replay);
            return replay.ok();
          });
        }
        return ok ? 0 : 1;
      }
    };
  }
}
