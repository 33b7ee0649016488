package io.gstm.core.program;

import java.util.List;

/**
 * The syntax tree of a transaction program, as the text parser and the Java builder both produce
 * it. Every node carries where it came from, so that a checking error can name the line and
 * column (text) or the builder call.
 */
public final class Ast {
  private Ast() {}

  /** Where a node came from: "line 3, column 7" or "builder: write(stock, ...)". */
  public record Loc(String where) {
    public static Loc at(int line, int column) {
      return new Loc("line " + line + ", column " + column);
    }

    @Override
    public String toString() {
      return where;
    }
  }

  /** An expression. */
  public sealed interface Expr permits IntLit, FloatLit, BoolLit, Name, Index, Unary, Binary,
      Call {
    Loc loc();
  }

  /** An integer literal; {@code type} is INT32 unless it needs 64 bits or was written with L. */
  public record IntLit(long value, ValueType type, Loc loc) implements Expr {}

  /** A floating-point literal; FLOAT32 when written with f, else FLOAT64. */
  public record FloatLit(double value, ValueType type, Loc loc) implements Expr {}

  public record BoolLit(boolean value, Loc loc) implements Expr {}

  /** A local, a scalar parameter, an output or a loop variable. */
  public record Name(String name, Loc loc) implements Expr {}

  /** {@code name[index]}: a read of a region word, or an element of an array parameter. */
  public record Index(String name, Expr index, Loc loc) implements Expr {}

  /** {@code -x}, {@code !x} or {@code ~x}. */
  public record Unary(String op, Expr operand, Loc loc) implements Expr {}

  /** A binary operator: arithmetic, comparison, bitwise, shift or logic ({@code &&, ||}). */
  public record Binary(String op, Expr left, Expr right, Loc loc) implements Expr {}

  /**
   * A built-in function: min, max, abs, sqrt, the casts int32/int64/float32/float64, and over a
   * region named by the first argument, len(region) and sum(region, first, count).
   */
  public record Call(String function, List<Expr> args, Loc loc) implements Expr {
    public Call {
      args = List.copyOf(args);
    }
  }

  /** A statement. */
  public sealed interface Stmt permits Let, Assign, Store, If, For, Retry, Abort, Return {
    Loc loc();
  }

  /**
   * {@code let x = e;} (immutable) or {@code var x = e;} (mutable), with an optional declared
   * type ({@code declared} null when inferred from {@code value}).
   */
  public record Let(String name, ValueType declared, boolean mutable, Expr value, Loc loc)
      implements Stmt {}

  /** {@code x = e;} for a {@code var} or an output. */
  public record Assign(String name, Expr value, Loc loc) implements Stmt {}

  /** {@code region[index] = value;}: a transactional write. */
  public record Store(String region, Expr index, Expr value, Loc loc) implements Stmt {}

  public record If(Expr condition, List<Stmt> then, List<Stmt> otherwise, Loc loc)
      implements Stmt {
    public If {
      then = List.copyOf(then);
      otherwise = List.copyOf(otherwise);
    }
  }

  /**
   * {@code for i in from .. to [max N] { ... }}: {@code i} runs from {@code from} up to
   * {@code to - 1}. The trip count must be known to be at most a bound before the run: either
   * both ends are constants, or {@code max} gives the bound (a transaction whose trip count
   * exceeds it ends LOOP_LIMIT). {@code max} is null when not given.
   */
  public record For(String variable, Expr from, Expr to, Integer max, List<Stmt> body, Loc loc)
      implements Stmt {
    public For {
      body = List.copyOf(body);
    }
  }

  /** A semantic conflict: the transaction cannot proceed in this state (postponed or retried). */
  public record Retry(Loc loc) implements Stmt {}

  /** Ends the transaction with a user code; it changes nothing. */
  public record Abort(Expr code, Loc loc) implements Stmt {}

  /** Ends the body early; the transaction commits what it wrote. */
  public record Return(Loc loc) implements Stmt {}
}
