package io.gstm.benchmarks.jmh;

import io.gstm.benchmarks.ScalaStmBank;
import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankPrograms;
import io.gstm.core.workload.bank.SemanticBankConfig;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import scala.concurrent.stm.Ref;

/**
 * The JVM engine's hot paths, one batch of {@value #TX} transactions per invocation, so the
 * score (ops/s) is transactions per second: a PR-STM bank batch, the same bank as an interpreted
 * transaction program, the semantic bank (deposits and withdrawals, postponed), a CSMV bank
 * batch with audits, and ScalaSTM on the same transfers as the PR-STM batch.
 *
 * <p>Each JMH thread drives one batch at a time; the engine spreads it over {@code workers}
 * threads of its own, so run with JMH's default of one benchmark thread.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(BankBenchmarks.TX)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class BankBenchmarks {
  /** Transactions per batch (one invocation). */
  static final int TX = 1 << 16;

  @Param({"1024", "65536"})
  public int accounts;

  /** The engine's worker threads (and ScalaSTM's threads). */
  @Param({"2"})
  public int workers;

  private JvmEngine engine;
  private ScalaStmBank scala;
  private Ref.View<Integer>[] scalaAccounts;
  private int[] initial;
  private TxBatch transfers;
  private TxStore prStm;
  private ProgramBatch programs;
  private TxStore programStore;
  private SemanticBankConfig semanticCfg;
  private TxBatch semantic;
  private int[] semanticInitial;
  private TxStore semanticStore;
  private TxBatch csmv;
  private TxStore csmvStore;
  private RunOptions csmvOptions;

  @Setup(Level.Trial)
  public void setUp() {
    engine = new JvmEngine(workers);
    scala = new ScalaStmBank(workers);
    // One logical thread per worker: transaction t runs on worker t mod workers, as in ScalaSTM.
    BankConfig bank = BankConfig.builder().accounts(accounts).k(2).readOnly(0).lockCoverage(1)
        .grid(1, workers).txPerThread(TX / workers).seed(42).build();
    initial = bank.initialBalances();
    transfers = bank.batch();
    prStm = engine.createStore(bank.layout());
    prStm.writeInt32(0, initial);
    scalaAccounts = ScalaStmBank.accounts(initial);
    programs = BankPrograms.batch(transfers, BankPrograms.set(transfers, false));
    programStore = engine.createStore(bank.layout());
    programStore.writeInt32(0, initial);
    // At most 32 transactions per logical thread (the postponement window): all commit.
    semanticCfg = SemanticBankConfig.builder().accounts(accounts).k(2).semanticRatio(1.0)
        .lockCoverage(1).grid(256, TX / 256 / 32).txPerThread(32).seed(7).build();
    semantic = semanticCfg.batch();
    semanticInitial = semanticCfg.initialBalances();
    semanticStore = engine.createStore(semanticCfg.layout());
    // CSMV's read-only audits sum the whole bank (the CSMV paper's bank), 20% of them.
    BankConfig csmvBank = BankConfig.builder().accounts(accounts).k(2).readOnly(0.2)
        .lockCoverage(1).grid(32, 4).txPerThread(TX / 128).seed(42).build();
    csmv = csmvBank.batchWithAuditSpan(Math.min(accounts, 64));
    csmvStore = engine.createStore(csmvBank.layout(), Algorithm.csmv(Algorithm.DEFAULT_VERSIONS));
    csmvStore.writeInt32(0, initial);
    csmvOptions = new RunOptions(10_000, false);
  }

  /** The semantic bank's withdrawals depend on the balances: each batch starts from the same. */
  @Setup(Level.Invocation)
  public void resetSemantic() {
    semanticStore.writeInt32(0, semanticInitial);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    csmvStore.close();
    semanticStore.close();
    programStore.close();
    prStm.close();
    scala.close();
    engine.close();
  }

  /** A PR-STM bank batch: k=2 transfers (unchecked transfers run from any balances). */
  @Benchmark
  public BatchResult prStmBank() {
    return engine.run(prStm, transfers, RunOptions.defaults());
  }

  /** The same transfers as a transaction program: checked, compiled, interpreted. */
  @Benchmark
  public ProgramResult programBank() {
    return engine.run(programStore, programs, RunOptions.defaults());
  }

  /** Deposit/withdrawal pairs under the semantic contention manager (postpone). */
  @Benchmark
  public BatchResult semanticBank() {
    return engine.run(semanticStore, semantic, RunOptions.defaults());
  }

  /** A CSMV bank batch: transfers and 20% audits of 64 consecutive accounts. */
  @Benchmark
  public BatchResult csmvBank() {
    return engine.run(csmvStore, csmv, csmvOptions);
  }

  /** ScalaSTM on the PR-STM batch's transfers, with as many threads as the engine's workers. */
  @Benchmark
  public ScalaStmBank.Run scalaStmBank() {
    return scala.run(transfers, scalaAccounts);
  }
}
