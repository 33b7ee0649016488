package io.gstm.spark.state;

import io.gstm.core.program.Ast;
import io.gstm.core.program.Program;
import io.gstm.core.program.ValueType;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How a program addresses a {@link TxState}: every read and write of a state column must name
 * its row by a key parameter, i.e. an int32 parameter (or an element of an int32 array
 * parameter) whose column holds the row's key, or an immutable {@code let} copy of one. Those
 * parameters are the program's keys: their columns are routed by key and replaced by the row's
 * local index before the program runs. A computed index ({@code balance[src + 1]}), {@code len}
 * and {@code sum} over a state column and {@code shared} state columns have no meaning over
 * hash-partitioned rows and are refused here, naming the program and where.
 */
final class ProgramAccess {
  private final Program program;
  private final StateSchema state;
  private final Map<String, Program.Param> params = new HashMap<>();
  private final Map<String, String> aliases = new HashMap<>();
  private final Set<String> regions = new LinkedHashSet<>();
  private final Set<String> keys = new LinkedHashSet<>();
  private final Set<String> written = new LinkedHashSet<>();

  /**
   * What a program touches: its key parameters (names, in order of first use), those of them
   * whose rows it writes, and whether it declares the state's {@value StateSchema#EXISTS} region.
   */
  record Access(Set<String> keys, Set<String> written, boolean namesExists) {}

  private ProgramAccess(Program program, StateSchema state) {
    this.program = program;
    this.state = state;
    for (Program.Param p : program.params()) {
      params.put(p.name(), p);
    }
  }

  /** The key parameters of {@code program} (names, in order of first use); checks access. */
  static Set<String> keys(Program program, StateSchema state) {
    return of(program, state).keys();
  }

  /** What {@code program} touches; checks access. */
  static Access of(Program program, StateSchema state) {
    ProgramAccess a = new ProgramAccess(program, state);
    for (Program.RegionDecl r : program.regions()) {
      int i = state.region(r.name());
      if (i < 0) {
        throw a.error(r.loc(), "uses region '" + r.name() + "', which is not a column of state '"
            + state.name() + "' (its value columns: " + state.valueNames() + ")");
      }
      if (state.regionType(i) != r.type()) {
        throw a.error(r.loc(), "declares region '" + r.name() + "' as " + r.type()
            + " but state column '" + r.name() + "' holds " + state.regionType(i));
      }
      if (r.shared()) {
        throw a.error(r.loc(), "declares state column '" + r.name() + "' shared: state columns "
            + "are written by transactions, so they are read transactionally (drop 'shared')");
      }
      a.regions.add(r.name());
    }
    a.block(program.body());
    for (String k : a.keys) {
      Program.Param p = a.params.get(k);
      if (p.type() != ValueType.INT32) {
        throw a.error(p.loc(), "indexes the state with parameter '" + k + "' of type "
            + p.type() + ": a key parameter must be int32 (it receives the row's local index; "
            + "its column may hold int or long keys)");
      }
    }
    return new Access(a.keys, a.written, a.regions.contains(StateSchema.EXISTS)
        && state.existsRegion() >= 0);
  }

  private void block(List<Ast.Stmt> stmts) {
    for (Ast.Stmt s : stmts) {
      stmt(s);
    }
  }

  private void stmt(Ast.Stmt s) {
    if (s instanceof Ast.Let l) {
      expr(l.value());
      if (!l.mutable() && l.value() instanceof Ast.Name n && keyName(n.name()) != null) {
        aliases.put(l.name(), keyName(n.name()));
      }
    } else if (s instanceof Ast.Assign a) {
      expr(a.value());
    } else if (s instanceof Ast.Store st) {
      written.add(index(st.region(), st.index(), st.loc()));
      expr(st.value());
    } else if (s instanceof Ast.If i) {
      expr(i.condition());
      block(i.then());
      block(i.otherwise());
    } else if (s instanceof Ast.For f) {
      expr(f.from());
      expr(f.to());
      block(f.body());
    } else if (s instanceof Ast.Abort a) {
      expr(a.code());
    }
  }

  private void expr(Ast.Expr e) {
    if (e instanceof Ast.Index ix) {
      if (regions.contains(ix.name())) {
        index(ix.name(), ix.index(), ix.loc());
      }
      expr(ix.index());
    } else if (e instanceof Ast.Unary u) {
      expr(u.operand());
    } else if (e instanceof Ast.Binary b) {
      expr(b.left());
      expr(b.right());
    } else if (e instanceof Ast.Call c) {
      if ((c.function().equals("len") || c.function().equals("sum")) && !c.args().isEmpty()
          && c.args().get(0) instanceof Ast.Name n && regions.contains(n.name())) {
        throw error(c.loc(), "calls " + c.function() + "() over state column '" + n.name()
            + "': a state's rows are partitioned by key, not addressable by position");
      }
      c.args().forEach(this::expr);
    }
  }

  /** The key parameter {@code name} stands for (itself or through a let), or null. */
  private String keyName(String name) {
    String alias = aliases.get(name);
    if (alias != null) {
      return alias;
    }
    Program.Param p = params.get(name);
    return p != null && !p.isArray() ? name : null;
  }

  /** Checks one index of a state column; returns the key parameter it names. */
  private String index(String region, Ast.Expr index, Ast.Loc loc) {
    if (index instanceof Ast.Name n && keyName(n.name()) != null) {
      keys.add(keyName(n.name()));
      return keyName(n.name());
    }
    if (index instanceof Ast.Index ix && params.containsKey(ix.name())
        && params.get(ix.name()).isArray()) {
      keys.add(ix.name());
      return ix.name();
    }
    throw error(loc, "indexes state column '" + region + "' with a computed index: a state "
        + "row must be named by a key parameter (an int32 parameter whose column holds the "
        + "row's key, e.g. " + region + "[src]), or an immutable let copy of one");
  }

  private IllegalArgumentException error(Ast.Loc loc, String what) {
    return new IllegalArgumentException("program '" + program.name() + "' (" + loc + ") " + what);
  }
}
