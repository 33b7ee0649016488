package io.gstm.spark.state;

import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.program.Program;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One apply of transactions to a {@link TxState}, configured fluently and run by {@link #run()}:
 *
 * <pre>{@code
 * ApplyResult r = accounts.transactions(transfers, BANK)
 *     .typeColumn("program").idColumn("id").batchId(batchId).run();
 * }</pre>
 *
 * <p>Each row of the transactions DataFrame is one transaction; its columns are the program's
 * parameters by name. A program's keys are the parameters it indexes the state with
 * ({@code balance[src]}): their columns hold state keys, which are routed to the partitions
 * that own them and replaced by the rows' local indices. Checks of the programs and the columns
 * happen in {@link #run()}, before any task.
 */
public final class TxApply {
  private static final Logger LOG = LoggerFactory.getLogger(TxApply.class);

  private final TxState state;
  private final Dataset<Row> transactions;
  private final List<Program> programs;
  String typeColumn;
  String idColumn;
  List<String> keyColumns;
  Long batchId;
  boolean rejectCross;
  boolean recordOrder;
  String exchange;
  boolean presort;
  SemanticPolicy policy = SemanticPolicy.POSTPONE;
  int semanticLimit;

  TxApply(TxState state, Dataset<Row> transactions, List<Program> programs) {
    if (transactions == null) {
      throw new IllegalArgumentException("transactions: the DataFrame must not be null");
    }
    this.state = state;
    this.transactions = transactions;
    this.programs = List.copyOf(programs);
  }

  /**
   * The column naming each row's program: program names (string) or indices into the programs
   * (integral). Needed with several programs; default "program" when that column exists.
   */
  public TxApply typeColumn(String value) {
    this.typeColumn = value;
    return this;
  }

  /** An integral column whose values become the outcomes' txId (default: generated ids). */
  public TxApply idColumn(String value) {
    this.idColumn = value;
    return this;
  }

  /**
   * The columns that may hold keys; every parameter a program indexes the state with must be
   * among them (a check; the keys are found from the programs either way).
   */
  public TxApply keys(String... columns) {
    this.keyColumns = List.of(columns);
    return this;
  }

  /**
   * Makes the apply idempotent per batch id: a batch id the state has applied (or restored
   * from a checkpoint that had applied it) is not applied again; {@link #run()} returns the
   * earlier result, marked {@link ApplyResult#replayed()}. For Structured Streaming's
   * {@code foreachBatch}, pass its batch id.
   */
  public TxApply batchId(long value) {
    this.batchId = value;
    return this;
  }

  /**
   * "allow" (the default): transactions whose keys have several owners run in the
   * cross-partition phase; "reject": such a transaction fails the apply before anything
   * changes, with an error naming its keys and their partitions.
   */
  public TxApply crossPartition(String mode) {
    String m = mode == null ? "" : mode.trim().toLowerCase(Locale.ROOT);
    switch (m) {
      case "allow" -> rejectCross = false;
      case "reject" -> rejectCross = true;
      default -> throw new IllegalArgumentException("crossPartition: expected allow or reject, "
          + "got '" + mode + "'");
    }
    return this;
  }

  /**
   * How the transactions whose keys have several owners run (default {@code
   * spark.gstm.state.exchange}): "mesh" (the epoch in one stage, every partition's task taking
   * part), "jobs" (one task runs them all) or "auto".
   */
  public TxApply exchange(String value) {
    this.exchange = io.gstm.spark.conf.GstmConf.STATE_EXCHANGE.parse(value);
    return this;
  }

  /**
   * Records a serial order of the committed transactions (the outcome column {@code serial}),
   * from the engine's history: for verification; it costs the history's bookkeeping.
   */
  public TxApply recordOrder(boolean value) {
    this.recordOrder = value;
    return this;
  }

  /** Runs higher program tags first within each batch (the JPDC paper's pre-sorting). */
  public TxApply presort(boolean value) {
    this.presort = value;
    return this;
  }

  /** "postpone" (default) or "retry-in-place" for a program's {@code retry}. */
  public TxApply semanticPolicy(String value) {
    this.policy = SemanticPolicy.parse(value);
    return this;
  }

  /** Semantic conflicts a transaction may meet before it ends ABANDONED_SEMANTIC. */
  public TxApply semanticLimit(int value) {
    if (value < 1) {
      throw new IllegalArgumentException("semanticLimit must be at least 1, got " + value);
    }
    this.semanticLimit = value;
    return this;
  }

  /** Checks, then applies the transactions as one epoch; see {@link TxState}. */
  public ApplyResult run() {
    state.checkOpen();
    long t0 = System.nanoTime();
    ApplyPlan plan = ApplyPlan.of(state.schema(), programs, transactions.schema(), this);
    LOG.debug("gstm state '{}': apply planned in {} ms", state.schema().name(),
        (System.nanoTime() - t0) / 1_000_000);
    // The epoch's jobs and RDDs named once, after the caller's line.
    return io.gstm.spark.exec.JobCallSite.around(transactions.sparkSession().sparkContext(),
        "TxState '" + state.schema().name() + "' apply", TxApply.class,
        () -> state.run(transactions, plan, batchId));
  }
}
