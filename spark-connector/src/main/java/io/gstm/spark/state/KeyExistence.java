package io.gstm.spark.state;

import io.gstm.core.program.Ast;
import io.gstm.core.program.Program;
import io.gstm.core.program.ValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Inserts and deletes as ordinary transactional reads and writes of the state's
 * {@value StateSchema#EXISTS} region, so that every engine and algorithm runs them with the
 * isolation it gives any other word: two inserts of one key both write its {@code exists}, a
 * delete conflicts with every transaction that checked the key.
 *
 * <p>A program of a state with inserts and deletes is rewritten before it is compiled:
 *
 * <ul>
 *   <li>one that does not declare {@code exists} gets a guard first: a key of the transaction
 *       whose row does not exist ends it MISSING_KEY, as a key the state never held does in a
 *       state without inserts (the guard aborts with {@link #MISSING}, which the outcome maps);
 *   <li>one that declares it decides for itself, and after it (at its end and before each
 *       {@code return}) every row it may write that does not exist is cleared to zeros: a row
 *       that does not exist holds zeros in every column, whoever deleted it and however, so an
 *       insert reads zeros where it writes nothing.
 * </ul>
 */
final class KeyExistence {
  /** The abort code of the guard: reserved in a state with inserts and deletes. */
  static final int MISSING = Integer.MIN_VALUE;
  private static final Ast.Loc LOC = new Ast.Loc("gstm's row-existence check");

  private KeyExistence() {}

  /** Whether {@code p}, as given, gets the guard (it does not declare {@code exists}). */
  static boolean guarded(Program p, StateSchema state) {
    return state.insertsAndDeletes() && !ProgramAccess.of(p, state).namesExists();
  }

  /** {@code p} as a state of {@code state}'s kind runs it. */
  static Program rewrite(Program p, StateSchema state) {
    if (!state.insertsAndDeletes()) {
      return p;
    }
    ProgramAccess.Access access = ProgramAccess.of(p, state);
    if (access.keys().isEmpty()) {
      return p;
    }
    List<Program.RegionDecl> regions = new ArrayList<>(p.regions());
    if (!access.namesExists()) {
      refuseReservedCode(p, p.body());
      regions.add(new Program.RegionDecl(StateSchema.EXISTS, ValueType.INT32, false, LOC));
      List<Ast.Stmt> body = new ArrayList<>();
      for (Ast.Expr key : rows(p, access.keys())) {
        body.add(new Ast.If(absent(key), List.of(new Ast.Abort(
            new Ast.IntLit(MISSING, ValueType.INT32, LOC), LOC)), List.of(), LOC));
      }
      body.addAll(p.body());
      return new Program(p.name(), p.params(), regions, p.outputs(), p.tag(), body, p.loc());
    }
    if (access.written().isEmpty()) {
      return p;
    }
    for (int r = 0; r < state.values(); r++) {
      String name = state.valueNames().get(r);
      if (regions.stream().noneMatch(d -> d.name().equals(name))) {
        regions.add(new Program.RegionDecl(name, state.valueTypes().get(r), false, LOC));
      }
    }
    List<Ast.Stmt> clear = new ArrayList<>();
    for (Ast.Expr key : rows(p, access.written())) {
      List<Ast.Stmt> zeros = new ArrayList<>();
      for (int r = 0; r < state.values(); r++) {
        zeros.add(new Ast.Store(state.valueNames().get(r), key,
            zero(state.valueTypes().get(r)), LOC));
      }
      clear.add(new Ast.If(absent(key), zeros, List.of(), LOC));
    }
    List<Ast.Stmt> body = beforeReturns(p.body(), clear);
    body.addAll(clear);
    return new Program(p.name(), p.params(), regions, p.outputs(), p.tag(), body, p.loc());
  }

  /** The rows named by key parameters {@code keys}: each scalar, each element of an array. */
  private static List<Ast.Expr> rows(Program p, Set<String> keys) {
    List<Ast.Expr> out = new ArrayList<>();
    for (Program.Param param : p.params()) {
      if (!keys.contains(param.name())) {
        continue;
      }
      if (!param.isArray()) {
        out.add(new Ast.Name(param.name(), LOC));
      } else {
        for (int e = 0; e < param.length(); e++) {
          out.add(new Ast.Index(param.name(), new Ast.IntLit(e, ValueType.INT32, LOC), LOC));
        }
      }
    }
    return out;
  }

  private static Ast.Expr absent(Ast.Expr key) {
    return new Ast.Binary("==", new Ast.Index(StateSchema.EXISTS, key, LOC),
        new Ast.IntLit(0, ValueType.INT32, LOC), LOC);
  }

  private static Ast.Expr zero(ValueType t) {
    return switch (t) {
      case FLOAT32, FLOAT64 -> new Ast.FloatLit(0.0, t, LOC);
      default -> new Ast.IntLit(0, t, LOC);
    };
  }

  /** {@code stmts} with {@code clear} before every {@code return}, at any depth. */
  private static List<Ast.Stmt> beforeReturns(List<Ast.Stmt> stmts, List<Ast.Stmt> clear) {
    List<Ast.Stmt> out = new ArrayList<>();
    for (Ast.Stmt s : stmts) {
      if (s instanceof Ast.Return) {
        out.addAll(clear);
        out.add(s);
      } else if (s instanceof Ast.If i) {
        out.add(new Ast.If(i.condition(), beforeReturns(i.then(), clear),
            beforeReturns(i.otherwise(), clear), i.loc()));
      } else if (s instanceof Ast.For f) {
        out.add(new Ast.For(f.variable(), f.from(), f.to(), f.max(),
            beforeReturns(f.body(), clear), f.loc()));
      } else {
        out.add(s);
      }
    }
    return out;
  }

  /** The guard's code as a literal, or the negation of one. */
  private static boolean isReserved(Ast.Expr code) {
    if (code instanceof Ast.IntLit lit) {
      return lit.value() == MISSING;
    }
    return code instanceof Ast.Unary u && u.op().equals("-")
        && u.operand() instanceof Ast.IntLit negated && negated.value() == -(long) MISSING;
  }

  /** A program that aborts with the guard's code itself would read as MISSING_KEY: refused. */
  private static void refuseReservedCode(Program p, List<Ast.Stmt> stmts) {
    for (Ast.Stmt s : stmts) {
      if (s instanceof Ast.Abort a && isReserved(a.code())) {
        throw new IllegalArgumentException("program '" + p.name() + "' (" + a.loc() + ") aborts "
            + "with code " + MISSING + ", which a state with inserts and deletes reserves for "
            + "MISSING_KEY; use another code");
      } else if (s instanceof Ast.If i) {
        refuseReservedCode(p, i.then());
        refuseReservedCode(p, i.otherwise());
      } else if (s instanceof Ast.For f) {
        refuseReservedCode(p, f.body());
      }
    }
  }
}
