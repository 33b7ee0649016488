package io.gstm.core.program;

import java.util.List;

/**
 * A transaction program as written: its name, typed parameters (values from the batch's
 * columns), the store regions it uses (by name and type), its outputs, its ordering tag and its
 * body. Made by {@link ProgramParser} from text or by {@link ProgramBuilder}; {@link #compile()}
 * checks it and turns it into the bytecode both engines run.
 *
 * @param name unique within a batch
 * @param params parameters, in order
 * @param regions regions used, in order
 * @param outputs outputs, in order (each starts at 0 and is returned when the transaction commits)
 * @param tag ordering tag: a pre-sorted batch runs higher tags first (deposits before
 *     withdrawals)
 * @param body the statements
 * @param loc where the program starts
 */
public record Program(String name, List<Param> params, List<RegionDecl> regions,
    List<Output> outputs, int tag, List<Ast.Stmt> body, Ast.Loc loc) {

  public Program {
    params = List.copyOf(params);
    regions = List.copyOf(regions);
    outputs = List.copyOf(outputs);
    body = List.copyOf(body);
  }

  /**
   * A parameter. A scalar reads column {@code name}; an array of {@code length} elements reads
   * columns {@code name[0] .. name[length-1]} and is indexed in the body.
   *
   * @param length 0 for a scalar, else the element count
   */
  public record Param(String name, ValueType type, int length, Ast.Loc loc) {
    public boolean isArray() {
      return length > 0;
    }

    /** The batch column of element {@code e} (of the scalar when e is 0 and this is one). */
    public String column(int e) {
      return isArray() ? name + "[" + e + "]" : name;
    }

    /** Columns this parameter reads. */
    public int width() {
      return isArray() ? length : 1;
    }
  }

  /**
   * A store region the program uses. A {@code shared} region is read outside the read set: data
   * that no transaction of the batch writes (a graph's edges, k-means points); writing one is an
   * error.
   */
  public record RegionDecl(String name, ValueType type, boolean shared, Ast.Loc loc) {}

  /** An output: a variable the body assigns, returned per committed transaction. */
  public record Output(String name, ValueType type, Ast.Loc loc) {}

  /** Checks this program and compiles it; a {@link ProgramException} names what is wrong. */
  public CompiledProgram compile() {
    return ProgramCompiler.compile(this);
  }

  /** Parses every program in {@code text}; a {@link ProgramException} names line and column. */
  public static List<Program> parse(String text) {
    return ProgramParser.parse(text);
  }

  /** Starts a program built in Java. */
  public static ProgramBuilder builder(String name) {
    return new ProgramBuilder(name);
  }
}
