package io.gstm.core.program;

import io.gstm.core.program.Ast.Loc;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Parses program text (a hand-written recursive-descent parser: the grammar is small, and the
 * errors can say what was expected at which line and column). The language is described in
 * {@code docs/programs.md}; in short:
 *
 * <pre>
 * program move(src: int32, dst: int32, qty: int32)
 *     regions stock: int32
 *     outputs left: int32
 *     tag 0
 * {
 *   let have = stock[src];
 *   if (have &lt; qty) { retry; }
 *   stock[src] = have - qty;
 *   stock[dst] = stock[dst] + qty;
 *   left = have - qty;
 * }
 * </pre>
 */
final class ProgramParser {
  private static final Set<String> KEYWORDS = Set.of("program", "regions", "outputs", "tag",
      "shared", "let", "var", "if", "else", "for", "in", "max", "retry", "abort", "return",
      "true", "false");

  private enum Kind { IDENT, INT, FLOAT, PUNCT, END }

  private record Token(Kind kind, String text, int line, int column) {
    Loc loc() {
      return Loc.at(line, column);
    }

    boolean is(String s) {
      return (kind == Kind.PUNCT || kind == Kind.IDENT) && text.equals(s);
    }

    String describe() {
      return kind == Kind.END ? "the end of the text" : "'" + text + "'";
    }
  }

  private final List<Token> tokens;
  private int pos;
  private String program;

  private ProgramParser(List<Token> tokens) {
    this.tokens = tokens;
  }

  static List<Program> parse(String text) {
    if (text == null) {
      throw new ProgramException(null, null, "program text must not be null");
    }
    ProgramParser p = new ProgramParser(lex(text));
    List<Program> programs = new ArrayList<>();
    while (p.peek().kind != Kind.END) {
      programs.add(p.program());
    }
    if (programs.isEmpty()) {
      throw new ProgramException(null, null, "the text holds no program (expected 'program')");
    }
    return programs;
  }

  // ---- lexer ----------------------------------------------------------------------------------

  private static final String[] PUNCT = {">>>", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
      "..", "(", ")", "{", "}", "[", "]", ",", ":", ";", "=", "<", ">", "+", "-", "*", "/", "%",
      "&", "|", "^", "~", "!"};

  private static List<Token> lex(String s) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    int line = 1;
    int lineStart = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      int col = i - lineStart + 1;
      if (c == '\n') {
        line++;
        i++;
        lineStart = i;
      } else if (Character.isWhitespace(c)) {
        i++;
      } else if (s.startsWith("//", i)) {
        while (i < s.length() && s.charAt(i) != '\n') {
          i++;
        }
      } else if (s.startsWith("/*", i)) {
        int end = s.indexOf("*/", i + 2);
        if (end < 0) {
          throw new ProgramException(null, Loc.at(line, col), "unterminated comment");
        }
        for (int j = i; j < end; j++) {
          if (s.charAt(j) == '\n') {
            line++;
            lineStart = j + 1;
          }
        }
        i = end + 2;
      } else if (Character.isLetter(c) || c == '_') {
        int j = i;
        while (j < s.length() && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) {
          j++;
        }
        out.add(new Token(Kind.IDENT, s.substring(i, j), line, col));
        i = j;
      } else if (Character.isDigit(c)) {
        int j = i;
        boolean isFloat = false;
        if (s.startsWith("0x", i) || s.startsWith("0X", i)) {
          j += 2;
          while (j < s.length() && Character.digit(s.charAt(j), 16) >= 0) {
            j++;
          }
          if (j == i + 2) {
            throw new ProgramException(null, Loc.at(line, col),
                "malformed number '" + s.substring(i, j) + "': hex digits must follow 0x");
          }
        } else {
          while (j < s.length() && Character.isDigit(s.charAt(j))) {
            j++;
          }
          if (j + 1 < s.length() && s.charAt(j) == '.' && Character.isDigit(s.charAt(j + 1))) {
            isFloat = true;
            j++;
            while (j < s.length() && Character.isDigit(s.charAt(j))) {
              j++;
            }
          }
          if (j < s.length() && (s.charAt(j) == 'e' || s.charAt(j) == 'E')) {
            int k = j + 1;
            if (k < s.length() && (s.charAt(k) == '+' || s.charAt(k) == '-')) {
              k++;
            }
            if (k < s.length() && Character.isDigit(s.charAt(k))) {
              isFloat = true;
              j = k;
              while (j < s.length() && Character.isDigit(s.charAt(j))) {
                j++;
              }
            }
          }
        }
        if (j < s.length() && "fFlL".indexOf(s.charAt(j)) >= 0) {
          if (isFloat && "lL".indexOf(s.charAt(j)) >= 0) {
            throw new ProgramException(null, Loc.at(line, col), "malformed number '"
                + s.substring(i, j + 1) + "': L marks an int64, not a floating-point number");
          }
          isFloat |= "fF".indexOf(s.charAt(j)) >= 0;
          j++;
        }
        if (!isFloat && c == '0' && j > i + 1 && Character.isDigit(s.charAt(i + 1))) {
          throw new ProgramException(null, Loc.at(line, col), "integer literal '"
              + s.substring(i, j) + "' starts with 0: octal is not supported (write it in "
              + "decimal, or in hex with 0x)");
        }
        if (j < s.length() && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) {
          throw new ProgramException(null, Loc.at(line, col),
              "malformed number '" + s.substring(i, j + 1) + "'");
        }
        out.add(new Token(isFloat ? Kind.FLOAT : Kind.INT, s.substring(i, j), line, col));
        i = j;
      } else {
        String p = null;
        for (String cand : PUNCT) {
          if (s.startsWith(cand, i)) {
            p = cand;
            break;
          }
        }
        if (p == null) {
          throw new ProgramException(null, Loc.at(line, col), "unexpected character '" + c + "'");
        }
        out.add(new Token(Kind.PUNCT, p, line, col));
        i += p.length();
      }
    }
    out.add(new Token(Kind.END, "", line, s.length() - lineStart + 1));
    return out;
  }

  // ---- helpers --------------------------------------------------------------------------------

  private Token peek() {
    return tokens.get(pos);
  }

  private Token peek(int ahead) {
    return tokens.get(Math.min(pos + ahead, tokens.size() - 1));
  }

  private Token next() {
    Token t = tokens.get(pos);
    if (t.kind != Kind.END) {
      pos++;
    }
    return t;
  }

  private boolean accept(String s) {
    if (peek().is(s)) {
      pos++;
      return true;
    }
    return false;
  }

  private Token expect(String s) {
    Token t = peek();
    if (!t.is(s)) {
      throw error(t, "expected '" + s + "' but found " + t.describe());
    }
    return next();
  }

  private String identifier(String what) {
    Token t = peek();
    if (t.kind != Kind.IDENT || KEYWORDS.contains(t.text)) {
      throw error(t, "expected " + what + " but found " + t.describe()
          + (KEYWORDS.contains(t.text) ? " (a keyword)" : ""));
    }
    return next().text;
  }

  private ValueType type() {
    Token t = peek();
    ValueType vt = t.kind == Kind.IDENT ? ValueType.ofKeyword(t.text) : null;
    if (vt == null) {
      throw error(t, "expected a type (int32, int64, float32, float64) but found "
          + t.describe());
    }
    next();
    return vt;
  }

  private int integer(String what) {
    Token t = peek();
    boolean negative = false;
    if (t.is("-") && peek(1).kind == Kind.INT) {
      negative = true;
      next();
      t = peek();
    }
    if (t.kind != Kind.INT) {
      throw error(t, "expected " + what + " (an integer) but found " + t.describe());
    }
    next();
    long v = parseInt(t);
    v = negative ? -v : v;
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw error(t, what + " " + v + " does not fit in int32");
    }
    return (int) v;
  }

  private ProgramException error(Token t, String message) {
    return new ProgramException(program, t.loc(), message);
  }

  // ---- grammar --------------------------------------------------------------------------------

  private Program program() {
    Token start = peek();
    if (!start.is("program")) {
      throw error(start, "expected 'program' but found " + start.describe());
    }
    next();
    program = null;
    String name = identifier("a program name");
    program = name;
    expect("(");
    List<Program.Param> params = new ArrayList<>();
    if (!peek().is(")")) {
      do {
        Token at = peek();
        String p = identifier("a parameter name");
        expect(":");
        ValueType type = type();
        int length = 0;
        if (accept("[")) {
          length = integer("the array length");
          if (length < 1) {
            throw error(at, "parameter '" + p + "': an array needs at least 1 element, got "
                + length);
          }
          expect("]");
        }
        params.add(new Program.Param(p, type, length, at.loc()));
      } while (accept(","));
    }
    expect(")");
    List<Program.RegionDecl> regions = new ArrayList<>();
    List<Program.Output> outputs = new ArrayList<>();
    int tag = 0;
    while (!peek().is("{")) {
      Token clause = peek();
      if (accept("regions")) {
        do {
          Token at = peek();
          boolean shared = accept("shared");
          String r = identifier("a region name");
          expect(":");
          regions.add(new Program.RegionDecl(r, type(), shared, at.loc()));
        } while (accept(","));
      } else if (accept("outputs")) {
        do {
          Token at = peek();
          String o = identifier("an output name");
          expect(":");
          outputs.add(new Program.Output(o, type(), at.loc()));
        } while (accept(","));
      } else if (accept("tag")) {
        tag = integer("the ordering tag");
      } else {
        throw error(clause, "expected 'regions', 'outputs', 'tag' or '{' but found "
            + clause.describe());
      }
    }
    List<Ast.Stmt> body = block();
    return new Program(name, params, regions, outputs, tag, body, start.loc());
  }

  private List<Ast.Stmt> block() {
    expect("{");
    List<Ast.Stmt> stmts = new ArrayList<>();
    while (!peek().is("}")) {
      if (peek().kind == Kind.END) {
        throw error(peek(), "expected '}' but found the end of the text");
      }
      stmts.add(statement());
    }
    expect("}");
    return stmts;
  }

  private Ast.Stmt statement() {
    Token t = peek();
    if (t.is("let") || t.is("var")) {
      next();
      String name = identifier("a variable name");
      ValueType declared = accept(":") ? type() : null;
      expect("=");
      Ast.Expr value = expression();
      expect(";");
      return new Ast.Let(name, declared, t.is("var"), value, t.loc());
    }
    if (t.is("if")) {
      return ifStatement();
    }
    if (t.is("for")) {
      next();
      String var = identifier("a loop variable");
      expect("in");
      Ast.Expr from = expression();
      expect("..");
      Ast.Expr to = expression();
      Integer max = null;
      if (accept("max")) {
        max = integer("the loop's max trip count");
      }
      return new Ast.For(var, from, to, max, block(), t.loc());
    }
    if (t.is("retry")) {
      next();
      expect(";");
      return new Ast.Retry(t.loc());
    }
    if (t.is("abort")) {
      next();
      expect("(");
      Ast.Expr code = expression();
      expect(")");
      expect(";");
      return new Ast.Abort(code, t.loc());
    }
    if (t.is("return")) {
      next();
      expect(";");
      return new Ast.Return(t.loc());
    }
    String name = identifier("a statement");
    if (accept("[")) {
      Ast.Expr index = expression();
      expect("]");
      expect("=");
      Ast.Expr value = expression();
      expect(";");
      return new Ast.Store(name, index, value, t.loc());
    }
    Token eq = peek();
    if (!eq.is("=")) {
      throw error(eq, "expected '=' or '[' after '" + name + "' but found " + eq.describe());
    }
    next();
    Ast.Expr value = expression();
    expect(";");
    return new Ast.Assign(name, value, t.loc());
  }

  private Ast.Stmt ifStatement() {
    Token t = expect("if");
    expect("(");
    Ast.Expr cond = expression();
    expect(")");
    List<Ast.Stmt> then = block();
    List<Ast.Stmt> otherwise = List.of();
    if (accept("else")) {
      otherwise = peek().is("if") ? List.of(ifStatement()) : block();
    }
    return new Ast.If(cond, then, otherwise, t.loc());
  }

  private static final String[][] LEVELS = {{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="},
      {"<", "<=", ">", ">="}, {"<<", ">>", ">>>"}, {"+", "-"}, {"*", "/", "%"}};

  private Ast.Expr expression() {
    return binary(0);
  }

  private Ast.Expr binary(int level) {
    if (level == LEVELS.length) {
      return unary();
    }
    Ast.Expr left = binary(level + 1);
    while (true) {
      Token t = peek();
      String op = null;
      if (t.kind == Kind.PUNCT) {
        for (String cand : LEVELS[level]) {
          if (t.text.equals(cand)) {
            op = cand;
          }
        }
      }
      if (op == null) {
        return left;
      }
      next();
      Ast.Expr right = binary(level + 1);
      left = new Ast.Binary(op, left, right, t.loc());
    }
  }

  private Ast.Expr unary() {
    Token t = peek();
    if (t.is("-") && pos + 1 < tokens.size() && tokens.get(pos + 1).kind == Kind.INT) {
      // As in Java, -2147483648 is an int32 and -9223372036854775808L an int64: the literal
      // after the minus sign would not fit on its own.
      Token n = tokens.get(pos + 1);
      if (n.text.equals("2147483648")) {
        next();
        next();
        return new Ast.IntLit(Integer.MIN_VALUE, ValueType.INT32, t.loc());
      }
      if (n.text.equalsIgnoreCase("9223372036854775808L")) {
        next();
        next();
        return new Ast.IntLit(Long.MIN_VALUE, ValueType.INT64, t.loc());
      }
    }
    if (t.is("-") || t.is("!") || t.is("~")) {
      next();
      return new Ast.Unary(t.text, unary(), t.loc());
    }
    return primary();
  }

  private Ast.Expr primary() {
    Token t = next();
    switch (t.kind) {
      case INT -> {
        long v = parseInt(t);
        boolean suffixed = t.text.endsWith("L") || t.text.endsWith("l");
        if (suffixed) {
          return new Ast.IntLit(v, ValueType.INT64, t.loc());
        }
        // As in Java, an unsuffixed literal is an int32 and is never widened silently; a hex
        // one names the bits of an int32 (0xFFFFFFFF is -1).
        boolean hex = t.text.startsWith("0x") || t.text.startsWith("0X");
        if (hex ? Long.compareUnsigned(v, 0xffffffffL) > 0 : v > Integer.MAX_VALUE) {
          throw error(t, "integer literal '" + t.text + "' does not fit in int32: write "
              + t.text + "L for an int64");
        }
        return new Ast.IntLit((int) v, ValueType.INT32, t.loc());
      }
      case FLOAT -> {
        String s = t.text;
        boolean single = s.endsWith("f") || s.endsWith("F");
        if (single) {
          s = s.substring(0, s.length() - 1);
        }
        double v;
        try {
          v = single ? Float.parseFloat(s) : Double.parseDouble(s);
        } catch (NumberFormatException e) {
          throw error(t, "malformed number '" + t.text + "'");
        }
        return new Ast.FloatLit(v, single ? ValueType.FLOAT32 : ValueType.FLOAT64, t.loc());
      }
      case IDENT -> {
        if (t.text.equals("true") || t.text.equals("false")) {
          return new Ast.BoolLit(t.text.equals("true"), t.loc());
        }
        if (KEYWORDS.contains(t.text) && !(t.text.equals("max") && peek().is("("))) {
          throw error(t, "expected an expression but found the keyword '" + t.text + "'");
        }
        if (accept("(")) {
          List<Ast.Expr> args = new ArrayList<>();
          if (!peek().is(")")) {
            do {
              args.add(expression());
            } while (accept(","));
          }
          expect(")");
          return new Ast.Call(t.text, args, t.loc());
        }
        if (accept("[")) {
          Ast.Expr index = expression();
          expect("]");
          return new Ast.Index(t.text, index, t.loc());
        }
        return new Ast.Name(t.text, t.loc());
      }
      case PUNCT -> {
        if (t.text.equals("(")) {
          Ast.Expr e = expression();
          expect(")");
          return e;
        }
        throw error(t, "expected an expression but found '" + t.text + "'");
      }
      default -> throw error(t, "expected an expression but found the end of the text");
    }
  }

  private long parseInt(Token t) {
    String s = t.text;
    if (s.endsWith("L") || s.endsWith("l")) {
      s = s.substring(0, s.length() - 1);
    }
    try {
      if (s.startsWith("0x") || s.startsWith("0X")) {
        return Long.parseUnsignedLong(s.substring(2), 16);
      }
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      boolean suffixed = s.length() < t.text.length();
      throw error(t, "integer literal '" + t.text + "' does not fit in "
          + (suffixed ? "int64" : "int32 (nor in int64)"));
    }
  }
}
