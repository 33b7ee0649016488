package io.gstm.core.program;

import io.gstm.core.program.Ast.Loc;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** The statements, shared by the program and its nested blocks. */
public abstract class Statements<S extends Statements<S>> {
  final List<Ast.Stmt> statements = new ArrayList<>();
  /** Statement counter of the whole program, for locations. */
  private final int[] counter;

  Statements(int[] counter) {
    this.counter = counter;
  }

  abstract S self();

  private Loc at(String call) {
    return new Loc("builder: statement " + ++counter[0] + ", " + call);
  }

  private S add(Ast.Stmt s) {
    statements.add(s);
    return self();
  }

  private List<Ast.Stmt> block(Consumer<Block> body) {
    Block b = new Block(counter);
    body.accept(b);
    return b.statements;
  }

  /** {@code let name = value;}: an immutable local. */
  public S let(String name, Term value) {
    return add(new Ast.Let(name, null, false, value.expr(), at("let(\"" + name + "\")")));
  }

  /** {@code var name: type = value;}: a mutable local. */
  public S var(String name, ValueType type, Term value) {
    return add(new Ast.Let(name, type, true, value.expr(), at("var(\"" + name + "\")")));
  }

  /** {@code name = value;} for a var or an output. */
  public S set(String name, Term value) {
    return add(new Ast.Assign(name, value.expr(), at("set(\"" + name + "\")")));
  }

  /** {@code region[index] = value;}. */
  public S write(String region, Term index, Term value) {
    return add(new Ast.Store(region, index.expr(), value.expr(),
        at("write(\"" + region + "\", ...)")));
  }

  public S ifThen(Term condition, Consumer<Block> then) {
    Loc loc = at("ifThen(...)");
    return add(new Ast.If(condition.expr(), block(then), List.of(), loc));
  }

  public S ifThenElse(Term condition, Consumer<Block> then, Consumer<Block> otherwise) {
    Loc loc = at("ifThenElse(...)");
    return add(new Ast.If(condition.expr(), block(then), block(otherwise), loc));
  }

  /** {@code for variable in from .. to { body }} with constant ends. */
  public S forRange(String variable, Term from, Term to, Consumer<Block> body) {
    Loc loc = at("forRange(\"" + variable + "\", ...)");
    return add(new Ast.For(variable, from.expr(), to.expr(), null, block(body), loc));
  }

  /** {@code for variable in from .. to max bound { body }}. */
  public S forRange(String variable, Term from, Term to, int max, Consumer<Block> body) {
    Loc loc = at("forRange(\"" + variable + "\", ..., max " + max + ")");
    return add(new Ast.For(variable, from.expr(), to.expr(), max, block(body), loc));
  }

  /** A semantic conflict: the transaction cannot proceed in this state. */
  public S retry() {
    return add(new Ast.Retry(at("retry()")));
  }

  /** Ends the transaction with a user code; it changes nothing. */
  public S abort(Term code) {
    return add(new Ast.Abort(code.expr(), at("abort(...)")));
  }

  /** Ends the body; the transaction commits what it wrote. */
  public S done() {
    return add(new Ast.Return(at("done()")));
  }
}
