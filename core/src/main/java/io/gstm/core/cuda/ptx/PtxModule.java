package io.gstm.core.cuda.ptx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PTX module as nvcc writes it, split for text-level linking: the preamble and module-scope
 * declarations as they stand, and each function definition as its header and a list of body
 * items (statements, labels, block braces). Comments are dropped.
 */
public final class PtxModule {
  /** One item of a function body. */
  public sealed interface Item permits Stmt, Label, Open, Close {}

  /** An instruction or directive, without its semicolon. */
  public record Stmt(String text) implements Item {}

  /** A label definition. */
  public record Label(String name) implements Item {}

  /** {@code {}: a block opens. */
  public record Open() implements Item {}

  /** {@code }}: a block closes. */
  public record Close() implements Item {}

  /**
   * A function definition. Its body is split into items when first asked for: a template holds
   * many functions and a compilation reads a few.
   */
  public static final class Function {
    private final String header;
    private final String name;
    private final boolean entry;
    private final LinkedHashMap<String, Integer> params;
    private final Map.Entry<String, Integer> retval;
    private final String text;
    private volatile List<Item> body;

    Function(String header, String name, boolean entry, LinkedHashMap<String, Integer> params,
        Map.Entry<String, Integer> retval, String text) {
      this.header = header;
      this.name = name;
      this.entry = entry;
      this.params = params;
      this.retval = retval;
      this.text = text;
    }

    /** Everything before the body's opening brace. */
    public String header() {
      return header;
    }

    public String name() {
      return name;
    }

    /** Whether it is a kernel ({@code .entry}). */
    public boolean entry() {
      return entry;
    }

    /** Its parameters' names, in order, with their sizes in bytes. */
    public LinkedHashMap<String, Integer> params() {
      return params;
    }

    /** The return parameter's name and size, or null. */
    public Map.Entry<String, Integer> retval() {
      return retval;
    }

    /** The items between the outer braces. */
    public List<Item> body() {
      List<Item> b = body;
      if (b == null) {
        b = items(text);
        body = b;
      }
      return b;
    }
  }

  private static final Pattern HEADER = Pattern.compile(
      "^\\s*(?:\\.visible\\s+|\\.weak\\s+)?\\.(func|entry)\\s*(\\([^)]*\\))?\\s*([\\w$]+)\\s*"
          + "\\(([^)]*)\\)", Pattern.DOTALL);
  /** A parameter declaration: type letter, width, name, array length (or none). */
  static final Pattern PARAM = Pattern.compile(
      "\\.param\\s+(?:\\.align\\s+\\d+\\s+)?\\.([busf])(8|16|32|64)\\s+([\\w$]+)\\s*(?:\\[(\\d+)])?");
  private static final Pattern LABEL = Pattern.compile("^([$\\w]+)\\s*:\\s*");

  private final List<String> declarations;
  private final Map<String, Function> functions;

  private PtxModule(List<String> declarations, Map<String, Function> functions) {
    this.declarations = declarations;
    this.functions = functions;
  }

  /** Module-scope text other than function definitions (preamble, globals, extern decls). */
  public List<String> declarations() {
    return declarations;
  }

  public Map<String, Function> functions() {
    return functions;
  }

  /** The same declarations with these functions. */
  public PtxModule withFunctions(Map<String, Function> replaced) {
    return new PtxModule(declarations, new LinkedHashMap<>(replaced));
  }

  public Function function(String name) {
    Function f = functions.get(name);
    if (f == null) {
      throw new PtxException("ptx: the module defines no function '" + name + "'");
    }
    return f;
  }

  /** Parses nvcc's PTX (or text written in its form). */
  public static PtxModule parse(String text) {
    String src = stripComments(text);
    List<String> declarations = new ArrayList<>();
    Map<String, Function> functions = new LinkedHashMap<>();
    int i = 0;
    int n = src.length();
    StringBuilder pending = new StringBuilder();
    while (i < n) {
      char ch = src.charAt(i);
      if (ch == '{') {
        // A function body: the pending text is its header.
        int end = matchBrace(src, i);
        String header = pending.toString().trim();
        pending.setLength(0);
        Function f = function(header, src.substring(i + 1, end));
        functions.put(f.name(), f);
        i = end + 1;
      } else if (ch == ';') {
        pending.append(';');
        declarations.add(pending.toString().trim());
        pending.setLength(0);
        i++;
      } else if (ch == '\n' && pending.toString().trim().matches(
          "\\.(version|target|address_size)\\b.*")) {
        declarations.add(pending.toString().trim());
        pending.setLength(0);
        i++;
      } else {
        pending.append(ch);
        i++;
      }
    }
    if (!pending.toString().isBlank()) {
      declarations.add(pending.toString().trim());
    }
    return new PtxModule(declarations, functions);
  }

  private static Function function(String header, String bodyText) {
    Matcher m = HEADER.matcher(header);
    if (!m.find()) {
      throw new PtxException("ptx: cannot read the function header '" + header + "'");
    }
    boolean entry = m.group(1).equals("entry");
    Map.Entry<String, Integer> retval = null;
    if (m.group(2) != null) {
      Matcher r = PARAM.matcher(m.group(2));
      if (r.find()) {
        retval = Map.entry(r.group(3), size(r));
      }
    }
    LinkedHashMap<String, Integer> params = new LinkedHashMap<>();
    Matcher p = PARAM.matcher(m.group(4));
    while (p.find()) {
      params.put(p.group(3), size(p));
    }
    return new Function(header, m.group(3), entry, params, retval, bodyText);
  }

  /** Bytes of a parameter declaration: the array's length, else the type's width. */
  static int size(Matcher param) {
    if (param.group(4) != null) {
      return Integer.parseInt(param.group(4)) * Integer.parseInt(param.group(2)) / 8;
    }
    return Integer.parseInt(param.group(2)) / 8;
  }

  /**
   * Splits a body into items. A brace that starts a statement opens or closes a block; one
   * inside a statement is a vector operand or an initializer.
   */
  public static List<Item> items(String body) {
    List<Item> items = new ArrayList<>();
    StringBuilder stmt = new StringBuilder();
    int depth = 0; // braces inside the current statement
    for (int i = 0; i < body.length(); i++) {
      char ch = body.charAt(i);
      boolean empty = stmt.toString().isBlank();
      if (ch == '{' && empty) {
        items.add(new Open());
        stmt.setLength(0);
      } else if (ch == '}' && empty && depth == 0) {
        items.add(new Close());
        stmt.setLength(0);
      } else if (ch == ';' && depth == 0) {
        String s = stmt.toString().trim();
        Matcher label = LABEL.matcher(s);
        while (label.find()) { // labels before an instruction on the same line
          items.add(new Label(label.group(1)));
          s = s.substring(label.end());
          label = LABEL.matcher(s);
        }
        if (!s.isEmpty()) {
          items.add(new Stmt(s.replaceAll("\\s+", " ")));
        }
        stmt.setLength(0);
      } else if (ch == ':' && depth == 0 && !empty
          && stmt.toString().trim().matches("[$\\w]+")) {
        items.add(new Label(stmt.toString().trim()));
        stmt.setLength(0);
      } else {
        if (ch == '{') {
          depth++;
        } else if (ch == '}') {
          depth--;
        }
        stmt.append(ch);
      }
    }
    if (!stmt.toString().isBlank()) {
      throw new PtxException("ptx: a body ends inside a statement: '" + stmt.toString().trim() + "'");
    }
    return items;
  }

  private static int matchBrace(String s, int open) {
    int depth = 0;
    for (int i = open; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '{') {
        depth++;
      } else if (ch == '}' && --depth == 0) {
        return i;
      }
    }
    throw new PtxException("ptx: a function body is not closed");
  }

  private static String stripComments(String text) {
    StringBuilder out = new StringBuilder(text.length());
    int i = 0;
    while (i < text.length()) {
      if (text.startsWith("//", i)) {
        while (i < text.length() && text.charAt(i) != '\n') {
          i++;
        }
      } else if (text.startsWith("/*", i)) {
        int end = text.indexOf("*/", i + 2);
        i = end < 0 ? text.length() : end + 2;
      } else {
        out.append(text.charAt(i++));
      }
    }
    return out.toString();
  }

  /** Writes a body's items back as PTX, one per line. */
  public static void render(List<Item> items, StringBuilder out) {
    for (Item item : items) {
      if (item instanceof Stmt s) {
        out.append('\t').append(s.text()).append(";\n");
      } else if (item instanceof Label l) {
        out.append(l.name()).append(":\n");
      } else if (item instanceof Open) {
        out.append("{\n");
      } else {
        out.append("}\n");
      }
    }
  }
}
