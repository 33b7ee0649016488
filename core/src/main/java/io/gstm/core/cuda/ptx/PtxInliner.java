package io.gstm.core.cuda.ptx;

import io.gstm.core.cuda.ptx.PtxModule.Close;
import io.gstm.core.cuda.ptx.PtxModule.Function;
import io.gstm.core.cuda.ptx.PtxModule.Item;
import io.gstm.core.cuda.ptx.PtxModule.Label;
import io.gstm.core.cuda.ptx.PtxModule.Open;
import io.gstm.core.cuda.ptx.PtxModule.Stmt;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Inlines every call of a PTX module's kernels, so that the driver's JIT (which keeps calls as
 * calls) sees one function: a device function's body takes the place of each call, its
 * registers and labels renamed, and every parameter and return value, whatever its size, held
 * in 32-bit registers ("words") instead of the parameter space. An aggregate that crosses a
 * call by value (a transaction's sets and state) so stays in registers once inlined, which is
 * the point: a transaction addressed in memory would live in local memory.
 *
 * <p>Reads and writes of a parameter become moves, bit-field extracts and inserts of its
 * words. A function that takes a parameter's address, or a call to a function the module does
 * not define, is refused ({@link PtxException}).
 */
public final class PtxInliner {
  private static final Pattern CALL = Pattern.compile(
      "^call(?:\\.uni)?\\s+(?:\\(\\s*([\\w$]+)\\s*\\)\\s*,\\s*)?([\\w$]+)\\s*(?:,\\s*\\(([^)]*)\\))?$");
  private static final Pattern ACCESS = Pattern.compile(
      "^(ld|st)\\.param(\\.v[24])?\\.([busf])(8|16|32|64)\\s+(.*)$");
  private static final Pattern ADDRESS = Pattern.compile("^\\[\\s*([\\w$]+)\\s*(?:\\+\\s*(\\d+))?\\s*]$");
  private static final Pattern REG_DECL = Pattern.compile("^\\.reg\\s+\\.(\\w+)\\s+(.+)$");
  private static final Pattern LOCAL_DECL = Pattern.compile(
      "^\\.(?:local|shared)\\s+.*?([\\w$]+)\\s*\\[\\d*]$");
  private static final Pattern TOKEN = Pattern.compile("%?[A-Za-z_$][\\w$]*");

  private final PtxModule module;
  private final Map<String, List<Item>> expanded = new HashMap<>();
  private int sites;

  private PtxInliner(PtxModule module) {
    this.module = module;
  }

  /**
   * The module's declarations and the kernels {@code entries}, every call inlined; the device
   * functions themselves are left out.
   */
  public static String link(PtxModule module, List<String> entries) {
    PtxInliner inliner = new PtxInliner(module);
    StringBuilder out = new StringBuilder();
    for (String d : module.declarations()) {
      if (d.startsWith(".extern .func") || d.startsWith(".extern\t.func")) {
        continue; // defined in the module, or refused at its call
      }
      out.append(d).append('\n');
    }
    for (String name : entries) {
      Function f = module.function(name);
      out.append('\n').append(f.header()).append("\n{\n");
      PtxModule.render(inliner.expand(f.body()), out);
      out.append("}\n");
    }
    return out.toString();
  }

  /** A parameter held in {@code (bytes + 3) / 4} registers {@code base0, base1, ...}. */
  record Words(String base, int bytes) {
    String word(int i) {
      if (i < 0 || i >= (bytes + 3) / 4) {
        throw new PtxException("ptx: an access past the " + bytes + " bytes of a parameter");
      }
      return base + i;
    }

    String declaration() {
      return ".reg .b32 " + base + "<" + Math.max(1, (bytes + 3) / 4) + ">";
    }
  }

  /** A body with every call inlined and its own call sites' parameters in words. */
  private List<Item> expand(List<Item> body) {
    Map<String, Integer> bits = registerBits(body);
    List<Item> out = new ArrayList<>(body.size());
    Deque<Map<String, Words>> scopes = new ArrayDeque<>();
    scopes.push(new HashMap<>());
    for (Item item : body) {
      if (item instanceof Open) {
        scopes.push(new HashMap<>());
        out.add(item);
      } else if (item instanceof Close) {
        scopes.pop();
        out.add(item);
      } else if (item instanceof Stmt s) {
        String text = s.text();
        Matcher decl = PtxModule.PARAM.matcher(text);
        Matcher call = CALL.matcher(text);
        if (decl.matches()) {
          Words w = new Words("%s" + (sites++) + "w", PtxModule.size(decl));
          scopes.peek().put(decl.group(3), w);
          out.add(new Stmt(w.declaration()));
        } else if (text.startsWith("call")) {
          if (!call.matches()) {
            throw new PtxException("ptx: cannot read the call '" + text + "'");
          }
          out.addAll(inlineCall(call, scopes));
        } else {
          Map<String, Words> visible = new HashMap<>();
          scopes.descendingIterator().forEachRemaining(visible::putAll);
          out.addAll(rewriteAccess(text, visible, bits));
        }
      } else {
        out.add(item);
      }
    }
    return out;
  }

  private List<Item> inlineCall(Matcher call, Deque<Map<String, Words>> scopes) {
    String name = call.group(2);
    Function callee = module.functions().get(name);
    if (callee == null || callee.entry()) {
      throw new PtxException("ptx: cannot inline a call of '" + name
          + "': the module does not define it");
    }
    Map<String, Words> visible = new HashMap<>();
    scopes.descendingIterator().forEachRemaining(visible::putAll);
    Map<String, Words> binding = new HashMap<>();
    List<String> args = call.group(3) == null || call.group(3).isBlank() ? List.of()
        : List.of(call.group(3).trim().split("\\s*,\\s*"));
    List<String> params = new ArrayList<>(callee.params().keySet());
    if (args.size() != params.size()) {
      throw new PtxException("ptx: a call of '" + name + "' passes " + args.size()
          + " arguments for " + params.size() + " parameters");
    }
    for (int i = 0; i < args.size(); i++) {
      binding.put(params.get(i), lookup(visible, args.get(i)));
    }
    if (call.group(1) != null) {
      if (callee.retval() == null) {
        throw new PtxException("ptx: '" + name + "' returns nothing");
      }
      binding.put(callee.retval().getKey(), lookup(visible, call.group(1)));
    }
    List<Item> body = expanded.get(name);
    if (body == null) { // not computeIfAbsent: expanding it inlines its own calls
      body = expand(callee.body());
      expanded.put(name, body);
    }
    String prefix = "i" + (sites++) + "_";
    List<Item> renamed = rename(body, prefix);
    String end = "$" + prefix + "ret";
    Map<String, Integer> bits = registerBits(renamed);
    List<Item> out = new ArrayList<>(renamed.size() + 4);
    out.add(new Open());
    for (Item item : renamed) {
      if (item instanceof Stmt s) {
        String text = s.text();
        if (text.equals("ret") || text.equals("ret.uni")) {
          out.add(new Stmt("bra.uni " + end));
        } else if (text.matches("^@!?%[\\w$]+\\s+ret(\\.uni)?$")) {
          out.add(new Stmt(text.substring(0, text.indexOf(' ')) + " bra " + end));
        } else {
          out.addAll(rewriteAccess(text, binding, bits));
        }
      } else {
        out.add(item);
      }
    }
    out.add(new Label(end));
    out.add(new Close());
    return out;
  }

  private static Words lookup(Map<String, Words> visible, String name) {
    Words w = visible.get(name);
    if (w == null) {
      throw new PtxException("ptx: a call passes '" + name + "', which no .param of its block declares");
    }
    return w;
  }

  /** Renames the registers, labels and local arrays a body declares. */
  private static List<Item> rename(List<Item> body, String prefix) {
    Set<String> exact = new HashSet<>();
    Set<String> ranged = new HashSet<>();
    for (Item item : body) {
      if (item instanceof Label l) {
        exact.add(l.name());
      } else if (item instanceof Stmt s && s.text().startsWith(".")) {
        Matcher reg = REG_DECL.matcher(s.text());
        Matcher local = LOCAL_DECL.matcher(s.text());
        if (reg.matches()) {
          for (String n : reg.group(2).split("\\s*,\\s*")) {
            int lt = n.indexOf('<');
            (lt >= 0 ? ranged : exact).add(lt >= 0 ? n.substring(0, lt).trim() : n.trim());
          }
        } else if (local.matches()) {
          exact.add(local.group(1));
        }
      }
    }
    List<Item> out = new ArrayList<>(body.size());
    for (Item item : body) {
      if (item instanceof Label l) {
        out.add(new Label(renamed(l.name(), prefix)));
      } else if (item instanceof Stmt s) {
        out.add(new Stmt(renameTokens(s.text(), prefix, exact, ranged)));
      } else {
        out.add(item);
      }
    }
    return out;
  }

  /** The statement with every declared name renamed (one pass over its identifiers). */
  private static String renameTokens(String text, String prefix, Set<String> exact,
      Set<String> ranged) {
    StringBuilder sb = null;
    int n = text.length();
    int i = 0;
    int copied = 0;
    while (i < n) {
      char ch = text.charAt(i);
      boolean start = ch == '%' || ch == '$' || ch == '_' || Character.isLetter(ch);
      if (!start || (i > 0 && isIdent(text.charAt(i - 1)))) {
        i++;
        continue;
      }
      int j = i + 1;
      while (j < n && isIdent(text.charAt(j))) {
        j++;
      }
      String t = text.substring(i, j);
      int k = t.length();
      while (k > 0 && Character.isDigit(t.charAt(k - 1))) {
        k--;
      }
      String base = t.substring(0, k);
      if (exact.contains(t) || ranged.contains(t) || (k < t.length() && ranged.contains(base))) {
        if (sb == null) {
          sb = new StringBuilder(n + 16);
        }
        sb.append(text, copied, i).append(renamed(t, prefix));
        copied = j;
      }
      i = j;
    }
    if (sb == null) {
      return text;
    }
    return sb.append(text, copied, n).toString();
  }

  private static String stripDigits(String name) {
    int k = name.length();
    while (k > 0 && Character.isDigit(name.charAt(k - 1))) {
      k--;
    }
    return name.substring(0, k);
  }

  private static boolean isIdent(char ch) {
    return ch == '_' || ch == '$' || Character.isLetterOrDigit(ch);
  }

  private static String renamed(String name, String prefix) {
    if (name.startsWith("%")) {
      return "%" + prefix + name.substring(1);
    }
    if (name.startsWith("$")) {
      return "$" + prefix + name.substring(1);
    }
    return prefix + name;
  }

  /** Width in bits of each register a body declares (by name or by range base). */
  private static Map<String, Integer> registerBits(List<Item> body) {
    Map<String, Integer> bits = new HashMap<>();
    for (Item item : body) {
      if (item instanceof Stmt s && s.text().startsWith(".reg")) {
        Matcher reg = REG_DECL.matcher(s.text());
        if (reg.matches()) {
          int width = widthOf(reg.group(1));
          for (String n : reg.group(2).split("\\s*,\\s*")) {
            int lt = n.indexOf('<');
            bits.put(lt >= 0 ? n.substring(0, lt).trim() : n.trim(), width);
          }
        }
      }
    }
    return bits;
  }

  private static int widthOf(String type) {
    if (type.equals("pred")) {
      return 1;
    }
    String digits = type.replaceAll("\\D", "");
    return Math.max(16, Integer.parseInt(digits)); // .b8 registers are 16-bit wide in PTX
  }

  private static int bitsOf(String reg, Map<String, Integer> bits) {
    Integer b = bits.get(reg);
    if (b == null) {
      b = bits.get(stripDigits(reg));
    }
    if (b == null) {
      throw new PtxException("ptx: register '" + reg + "' is not declared in its function");
    }
    return b;
  }

  /**
   * A statement, with a read or write of a parameter in {@code words} replaced by moves of its
   * words; any other mention of such a parameter (its address taken) is refused.
   */
  static List<Item> rewriteAccess(String text, Map<String, Words> words, Map<String, Integer> bits) {
    if (!mentionsAny(text, words)) {
      return List.of(new Stmt(text));
    }
    Matcher m = ACCESS.matcher(text);
    if (!m.matches()) {
      Matcher t = TOKEN.matcher(text);
      while (t.find()) {
        if (words.containsKey(t.group())) {
          throw new PtxException("ptx: cannot inline '" + text
              + "': it uses the parameter's address");
        }
      }
      return List.of(new Stmt(text));
    }
    boolean load = m.group(1).equals("ld");
    int lanes = m.group(2) == null ? 1 : Integer.parseInt(m.group(2).substring(2));
    boolean signed = m.group(3).equals("s");
    int width = Integer.parseInt(m.group(4));
    String operands = m.group(5).trim();
    String address;
    String value;
    if (load) {
      int comma = operands.lastIndexOf(',');
      value = operands.substring(0, comma).trim();
      address = operands.substring(comma + 1).trim();
    } else {
      int close = operands.indexOf(']');
      address = operands.substring(0, close + 1).trim();
      value = operands.substring(close + 1).trim().replaceFirst("^,", "").trim();
    }
    Matcher a = ADDRESS.matcher(address);
    if (!a.matches() || !words.containsKey(a.group(1))) {
      return List.of(new Stmt(text)); // a kernel's own parameter, or not ours
    }
    Words w = words.get(a.group(1));
    int offset = a.group(2) == null ? 0 : Integer.parseInt(a.group(2));
    List<String> elems = lanes == 1 ? List.of(value)
        : List.of(value.replaceAll("^\\{|}$", "").trim().split("\\s*,\\s*"));
    if (elems.size() != lanes) {
      throw new PtxException("ptx: cannot read the operands of '" + text + "'");
    }
    List<Item> out = new ArrayList<>();
    for (int i = 0; i < lanes; i++) {
      int at = offset + i * width / 8;
      if (at % (width / 8) != 0) {
        throw new PtxException("ptx: a misaligned parameter access in '" + text + "'");
      }
      if (load) {
        load(out, elems.get(i), w, at, width, signed, bits);
      } else {
        store(out, elems.get(i), w, at, width, bits);
      }
    }
    return out;
  }

  /** Whether the text holds any of the names (a cheap test before the tokenizing one). */
  private static boolean mentionsAny(String text, Map<String, Words> words) {
    for (String name : words.keySet()) {
      if (text.contains(name)) {
        return true;
      }
    }
    return false;
  }

  private static void load(List<Item> out, String dst, Words w, int at, int width, boolean signed,
      Map<String, Integer> bits) {
    int dstBits = bitsOf(dst, bits);
    String word = w.word(at / 4);
    if (width == 64) {
      if (dstBits != 64) {
        throw new PtxException("ptx: a 64-bit parameter load into " + dst);
      }
      out.add(new Stmt("mov.b64 " + dst + ", {" + word + ", " + w.word(at / 4 + 1) + "}"));
      return;
    }
    String src = word;
    List<Item> block = new ArrayList<>();
    if (width < 32) {
      block.add(new Stmt(".reg .b32 %gstm_t"));
      block.add(new Stmt("bfe." + (signed ? "s" : "u") + "32 %gstm_t, " + word + ", "
          + (at % 4) * 8 + ", " + width));
      src = "%gstm_t";
    }
    switch (dstBits) {
      case 16 -> block.add(new Stmt("cvt.u16.u32 " + dst + ", " + src));
      case 32 -> block.add(new Stmt("mov.b32 " + dst + ", " + src));
      case 64 -> block.add(new Stmt("cvt." + (signed ? "s64.s32 " : "u64.u32 ") + dst + ", " + src));
      default -> throw new PtxException("ptx: a parameter load into " + dst);
    }
    enclose(out, block, width < 32);
  }

  private static void store(List<Item> out, String src, Words w, int at, int width,
      Map<String, Integer> bits) {
    boolean register = src.startsWith("%") || isDeclared(src, bits);
    String word = w.word(at / 4);
    if (width == 64) {
      String hi = w.word(at / 4 + 1);
      if (register && bitsOf(src, bits) == 64) {
        out.add(new Stmt("mov.b64 {" + word + ", " + hi + "}, " + src));
      } else if (register) {
        throw new PtxException("ptx: a 64-bit parameter store of " + src);
      } else {
        enclose(out, List.of(new Stmt(".reg .b64 %gstm_t64"),
            new Stmt("mov.b64 %gstm_t64, " + src),
            new Stmt("mov.b64 {" + word + ", " + hi + "}, %gstm_t64")), true);
      }
      return;
    }
    String value = register ? src : bits32(src);
    int srcBits = register ? bitsOf(src, bits) : 32;
    if (width == 32) {
      out.add(new Stmt(switch (srcBits) {
        case 16 -> "cvt.u32.u16 " + word + ", " + value;
        case 64 -> "cvt.u32.u64 " + word + ", " + value;
        default -> "mov.b32 " + word + ", " + value;
      }));
      return;
    }
    List<Item> block = new ArrayList<>();
    block.add(new Stmt(".reg .b32 %gstm_t"));
    block.add(new Stmt(switch (srcBits) {
      case 16 -> "cvt.u32.u16 %gstm_t, " + value;
      case 64 -> "cvt.u32.u64 %gstm_t, " + value;
      default -> "mov.b32 %gstm_t, " + value;
    }));
    block.add(new Stmt("bfi.b32 " + word + ", %gstm_t, " + word + ", " + (at % 4) * 8 + ", "
        + width));
    enclose(out, block, true);
  }

  private static boolean isDeclared(String name, Map<String, Integer> bits) {
    return bits.containsKey(name) || bits.containsKey(stripDigits(name));
  }

  /** A 32-bit immediate as an integer literal (a float one's bits: 0fXXXXXXXX). */
  private static String bits32(String literal) {
    if (literal.startsWith("0f") || literal.startsWith("0F")) {
      return "0x" + literal.substring(2);
    }
    return literal;
  }

  private static void enclose(List<Item> out, List<Item> block, boolean scoped) {
    if (scoped) {
      out.add(new Open());
    }
    out.addAll(block);
    if (scoped) {
      out.add(new Close());
    }
  }
}
