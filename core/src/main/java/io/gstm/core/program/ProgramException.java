package io.gstm.core.program;

/**
 * A program that cannot be parsed, checked, bound to a store or run: says which program and
 * where (line and column of the text, or the builder call). Raised before any transaction runs.
 */
public final class ProgramException extends IllegalArgumentException {
  private final String program;
  private final String where;

  public ProgramException(String program, Ast.Loc loc, String message) {
    super(describe(program, loc == null ? null : loc.where(), message));
    this.program = program;
    this.where = loc == null ? null : loc.where();
  }

  private static String describe(String program, String where, String message) {
    StringBuilder s = new StringBuilder();
    if (program != null) {
      s.append("program '").append(program).append("'");
    }
    if (where != null) {
      s.append(s.length() > 0 ? ", " : "").append(where);
    }
    return s.length() == 0 ? message : s + ": " + message;
  }

  /** The program's name, or null when the error is outside any program. */
  public String program() {
    return program;
  }

  /** "line L, column C" or the builder call; null when the error has no location. */
  public String where() {
    return where;
  }
}
