package io.gstm.core.workload.bank;

import static io.gstm.core.program.Term.element;
import static io.gstm.core.program.Term.of;
import static io.gstm.core.program.Term.read;
import static io.gstm.core.program.Term.ref;
import static io.gstm.core.program.ValueType.INT32;
import static io.gstm.core.program.ValueType.INT64;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.program.Program;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.Term;
import java.util.List;

/**
 * The bank written as transaction programs, in text and with the builder, with the meaning of
 * {@link BankWorkload}: type codes 0 transfer, 1 audit, 2 deposit, 3 withdraw, as there. A
 * transfer reads its accounts in order and writes each right after reading it; an audit sums
 * its k accounts, or with an audit span {@code sum()}s that many accounts from its first.
 * Columns: {@code acct[0] .. acct[k-1]} and {@code amount}.
 */
public final class BankPrograms {
  private BankPrograms() {}

  /**
   * One transfer between two accounts of an int64 region {@code balance}: {@code amount} from
   * {@code src} to {@code dst}, refused with code 2 when it would overdraw. The program of the
   * TxState benchmark ({@code gstm-spark tx-bench}) and of {@code gstm bench-transfers}.
   */
  public static final String KEYED_TRANSFER = """
      program transfer(src: int32, dst: int32, amount: int64)
          regions balance: int64
      {
        if (src == dst) { return; }
        let have = balance[src];
        if (have < amount) { abort(2); }  // would overdraw
        balance[src] = have - amount;
        balance[dst] = balance[dst] + amount;
      }
      """;

  /**
   * The four programs as text.
   *
   * @param k accounts per transfer or audit
   * @param checked whether a transfer that would overdraw its first account is a semantic
   *     conflict (retry)
   * @param auditSpan 0 to audit the k accounts, else the consecutive accounts an audit sums
   */
  public static String text(int k, boolean checked, int auditSpan) {
    String audit = auditSpan > 0 ? "  total = sum(balances, acct[0], " + auditSpan + ");\n"
        : """
          var s: int64 = 0;
          for j in 0 .. {K} {
            s = s + balances[acct[j]];
          }
          total = s;
        """;
    return """
        // Moves amount from acct[0] to each other account: acct[0] pays ({K} - 1) * amount.
        program transfer(acct: int32[{K}], amount: int32)
            regions balances: int32
        {
          let pays = amount * ({K} - 1);
          for j in 0 .. {K} {
            let a = acct[j];
            let v = balances[a];
            if (j == 0) {
        {CHECK}      balances[a] = v - pays;
            } else {
              balances[a] = v + amount;
            }
          }
        }

        // Read-only: the sum of its accounts.
        program audit(acct: int32[{K}])
            regions balances: int32
            outputs total: int64
        {
        {AUDIT}}

        program deposit(acct: int32[1], amount: int32)
            regions balances: int32
            tag 1
        {
          balances[acct[0]] = balances[acct[0]] + amount;
        }

        // Waits (retry) until the account holds the amount.
        program withdraw(acct: int32[1], amount: int32)
            regions balances: int32
        {
          let v = balances[acct[0]];
          if (v < amount) { retry; }
          balances[acct[0]] = v - amount;
        }
        """.replace("{CHECK}", checked ? "      if (v < pays) { retry; }\n" : "")
        .replace("{AUDIT}", audit)
        .replace("{K}", Integer.toString(k));
  }

  /** The same four programs made with the builder. */
  public static List<Program> built(int k, boolean checked, int auditSpan) {
    Program transfer = Program.builder("transfer")
        .arrayParam("acct", INT32, k).param("amount", INT32)
        .region("balances", INT32)
        .let("pays", ref("amount").mul(k - 1))
        .forRange("j", of(0), of(k), body -> body
            .let("a", element("acct", ref("j")))
            .let("v", read("balances", ref("a")))
            .ifThenElse(ref("j").eq(0), first -> {
              if (checked) {
                first.ifThen(ref("v").lt(ref("pays")), b -> b.retry());
              }
              first.write("balances", ref("a"), ref("v").sub(ref("pays")));
            }, other -> other.write("balances", ref("a"), ref("v").add(ref("amount")))))
        .build();
    var audit = Program.builder("audit").arrayParam("acct", INT32, k)
        .region("balances", INT32).output("total", INT64);
    if (auditSpan > 0) {
      audit.set("total", Term.sum("balances", element("acct", of(0)), of(auditSpan)));
    } else {
      audit.var("s", INT64, of(0L))
          .forRange("j", of(0), of(k), body -> body
              .set("s", ref("s").add(read("balances", element("acct", ref("j"))))))
          .set("total", ref("s"));
    }
    Term account = element("acct", of(0));
    Program deposit = Program.builder("deposit").arrayParam("acct", INT32, 1)
        .param("amount", INT32).region("balances", INT32).tag(1)
        .write("balances", account, read("balances", account).add(ref("amount")))
        .build();
    Program withdraw = Program.builder("withdraw").arrayParam("acct", INT32, 1)
        .param("amount", INT32).region("balances", INT32)
        .let("v", read("balances", account))
        .ifThen(ref("v").lt(ref("amount")), b -> b.retry())
        .write("balances", account, ref("v").sub(ref("amount")))
        .build();
    return List.of(transfer, audit.build(), deposit, withdraw);
  }

  /** The programs a hand-written bank batch needs (its k, checked flag and audit span). */
  public static ProgramSet set(TxBatch bank, boolean builder) {
    int k = BankWorkload.k(bank);
    boolean checked = BankWorkload.checked(bank);
    int span = BankWorkload.auditSpan(bank);
    return builder ? ProgramSet.compile(built(k, checked, span))
        : ProgramSet.parse(text(k, checked, span));
  }

  /** The same transactions as a hand-written bank batch, on the same grid. */
  public static ProgramBatch batch(TxBatch bank, ProgramSet programs) {
    int k = BankWorkload.k(bank);
    ProgramBatch.Builder b = ProgramBatch.builder(programs).types(bank.types());
    for (int j = 0; j < k; j++) {
      b.int32("acct[" + j + "]", bank.columns()[j]);
    }
    return b.int32("amount", bank.columns()[k]).grid(bank.threadsPerBlock(), bank.blocks())
        .build();
  }
}
