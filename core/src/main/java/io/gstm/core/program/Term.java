package io.gstm.core.program;

import io.gstm.core.program.Ast.Loc;
import java.util.ArrayList;
import java.util.List;

/**
 * An expression for {@link ProgramBuilder}: literals, names, region reads and the operators of
 * the text syntax, with the same meaning. Immutable; each method returns a new term.
 *
 * <pre>
 * Term have = Term.read("stock", Term.ref("src"));
 * Term enough = have.ge(Term.ref("qty"));
 * </pre>
 */
public final class Term {
  private final Ast.Expr expr;

  private Term(Ast.Expr expr) {
    this.expr = expr;
  }

  Ast.Expr expr() {
    return expr;
  }

  private static Loc loc(String call) {
    return new Loc("builder: " + call);
  }

  // ---- leaves ---------------------------------------------------------------------------------

  /** An int32 literal. */
  public static Term of(int value) {
    return new Term(new Ast.IntLit(value, ValueType.INT32, loc("of(" + value + ")")));
  }

  /** An int64 literal. */
  public static Term of(long value) {
    return new Term(new Ast.IntLit(value, ValueType.INT64, loc("of(" + value + "L)")));
  }

  /** A float64 literal. */
  public static Term of(double value) {
    return new Term(new Ast.FloatLit(value, ValueType.FLOAT64, loc("of(" + value + ")")));
  }

  /** A float32 literal. */
  public static Term of(float value) {
    return new Term(new Ast.FloatLit(value, ValueType.FLOAT32, loc("of(" + value + "f)")));
  }

  public static Term of(boolean value) {
    return new Term(new Ast.BoolLit(value, loc("of(" + value + ")")));
  }

  /** A local, a scalar parameter, an output or a loop variable. */
  public static Term ref(String name) {
    return new Term(new Ast.Name(name, loc("ref(\"" + name + "\")")));
  }

  /** A transactional read of {@code region[index]}. */
  public static Term read(String region, Term index) {
    return new Term(new Ast.Index(region, index.expr, loc("read(\"" + region + "\", ...)")));
  }

  /** Element {@code index} of an array parameter. */
  public static Term element(String param, Term index) {
    return new Term(new Ast.Index(param, index.expr, loc("element(\"" + param + "\", ...)")));
  }

  /** The number of words of {@code region} in the store the batch runs on. */
  public static Term len(String region) {
    return call("len", ref(region));
  }

  /**
   * The sum of {@code count} consecutive words of an integer region from {@code first}, wrapping
   * at the region's end, as one read (an audit); int64.
   */
  public static Term sum(String region, Term first, Term count) {
    return call("sum", ref(region), first, count);
  }

  private static Term call(String fn, Term... args) {
    List<Ast.Expr> list = new ArrayList<>();
    for (Term a : args) {
      list.add(a.expr);
    }
    return new Term(new Ast.Call(fn, list, loc(fn + "(...)")));
  }

  // ---- operators ------------------------------------------------------------------------------

  private Term bin(String op, Term other) {
    return new Term(new Ast.Binary(op, expr, other.expr, loc("'" + op + "'")));
  }

  /** Addition; an integer sum beyond its type's range ends the transaction OVERFLOW. */
  public Term add(Term o) {
    return bin("+", o);
  }

  public Term add(int o) {
    return add(of(o));
  }

  public Term sub(Term o) {
    return bin("-", o);
  }

  public Term sub(int o) {
    return sub(of(o));
  }

  /** Multiplication; an integer product beyond its type's range ends it OVERFLOW. */
  public Term mul(Term o) {
    return bin("*", o);
  }

  public Term mul(int o) {
    return mul(of(o));
  }

  /**
   * Division: integers truncate toward zero; an integer division by zero ends the transaction
   * DIVIDE_BY_ZERO, {@code MIN / -1} OVERFLOW.
   */
  public Term div(Term o) {
    return bin("/", o);
  }

  public Term rem(Term o) {
    return bin("%", o);
  }

  public Term lt(Term o) {
    return bin("<", o);
  }

  public Term le(Term o) {
    return bin("<=", o);
  }

  public Term gt(Term o) {
    return bin(">", o);
  }

  public Term ge(Term o) {
    return bin(">=", o);
  }

  public Term eq(Term o) {
    return bin("==", o);
  }

  public Term eq(int o) {
    return eq(of(o));
  }

  public Term ne(Term o) {
    return bin("!=", o);
  }

  /** Logical and of two bools, evaluated left to right: the right side only when needed. */
  public Term and(Term o) {
    return bin("&&", o);
  }

  public Term or(Term o) {
    return bin("||", o);
  }

  public Term bitAnd(Term o) {
    return bin("&", o);
  }

  public Term bitOr(Term o) {
    return bin("|", o);
  }

  public Term bitXor(Term o) {
    return bin("^", o);
  }

  public Term shl(Term o) {
    return bin("<<", o);
  }

  public Term shr(Term o) {
    return bin(">>", o);
  }

  public Term ushr(Term o) {
    return bin(">>>", o);
  }

  public Term neg() {
    return new Term(new Ast.Unary("-", expr, loc("neg()")));
  }

  public Term not() {
    return new Term(new Ast.Unary("!", expr, loc("not()")));
  }

  public Term bitNot() {
    return new Term(new Ast.Unary("~", expr, loc("bitNot()")));
  }

  public Term min(Term o) {
    return call("min", this, o);
  }

  public Term max(Term o) {
    return call("max", this, o);
  }

  public Term abs() {
    return call("abs", this);
  }

  /** Integer addition that wraps around in two's complement instead of overflowing. */
  public Term wrappingAdd(Term o) {
    return call("wrapping_add", this, o);
  }

  /** Integer subtraction that wraps around in two's complement instead of overflowing. */
  public Term wrappingSub(Term o) {
    return call("wrapping_sub", this, o);
  }

  /** Integer multiplication that wraps around in two's complement (hashes, checksums). */
  public Term wrappingMul(Term o) {
    return call("wrapping_mul", this, o);
  }

  public Term sqrt() {
    return call("sqrt", this);
  }

  /** A conversion, as in Java (float to integer truncates and saturates, NaN becomes 0). */
  public Term as(ValueType type) {
    return call(type.keyword(), this);
  }
}
