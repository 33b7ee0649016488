package io.gstm.core.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Seeded mutations of program text, CSV text and bytecode images, for the fuzzers. */
public final class Mutations {
  private Mutations() {}

  private static final String[] TOKENS = {"(", ")", "{", "}", "[", "]", ";", ",", ":", "=", "+",
      "-", "*", "/", "%", "<<", "&&", "||", "!", "retry;", "abort(", "let ", "var ", "for ",
      "if ", " else ", "program ", "regions ", "outputs ", "int32", "float64", "bool", "max ",
      "..", "9999999999999", "2147483648", "0x7fffffff", "1e999", "-0.0", "NaN", "\"", "'",
      "\u00e9", "\u0000", "//", "/*", "\n", "len(", "sum(", "sqrt(", "abs(", "r0", "r9", "v0",
      "cint32_0", "tag 99999999999", "return;", "shared ", "int64(", "float32(", " in ",
      "max 2147483647", "0 .. 2147483647"};

  /**
   * Deletes, duplicates, cuts or inserts characters, tokens, spans and deep nests of program
   * text; {@code deepNests} allows nests thousands of levels deep.
   */
  public static String program(SplittableRandom rnd, String text, boolean deepNests) {
    StringBuilder s = new StringBuilder(text);
    int n = 1 + rnd.nextInt(4);
    for (int i = 0; i < n && s.length() > 0; i++) {
      int at = rnd.nextInt(s.length());
      switch (rnd.nextInt(8)) {
        case 0 -> s.deleteCharAt(at);
        case 1 -> s.delete(at, Math.min(s.length(), at + 1 + rnd.nextInt(20)));
        case 2, 3 -> s.insert(at, TOKENS[rnd.nextInt(TOKENS.length)]);
        case 4 -> s.insert(at, (char) (32 + rnd.nextInt(95)));
        case 5 -> {
          int end = Math.min(s.length(), at + 1 + rnd.nextInt(40));
          s.insert(end, s.substring(at, end));
        }
        case 6 -> s.setLength(at);
        default -> {
          // A nest: the checker's bounds, and the parser's recursion (which overflows the
          // stack a few hundred levels deep: FuzzFindingsTest.deepNestsAreProgramExceptions).
          int depth = deepNests && rnd.nextBoolean() ? 5_000 + rnd.nextInt(20_000)
              : 5 + rnd.nextInt(60);
          s.insert(at, rnd.nextBoolean() ? "(".repeat(depth) + "1" + ")".repeat(depth)
              : "{ if (1 < 2) ".repeat(depth) + "{}" + " }".repeat(depth));
        }
      }
    }
    return s.toString();
  }

  /** Replaces cells, drops or adds cells, columns and rows, breaks quoting. */
  public static String csv(SplittableRandom rnd, String csv) {
    List<String> lines = new ArrayList<>(List.of(csv.split("\n", -1)));
    int n = 1 + rnd.nextInt(3);
    for (int i = 0; i < n; i++) {
      int line = rnd.nextInt(lines.size());
      String[] cells = lines.get(line).split(",", -1);
      switch (rnd.nextInt(9)) {
        case 0 -> {
          cells[rnd.nextInt(cells.length)] = new String[] {"", " ", "abc", "1.5", "NaN",
              "99999999999999999999", "-2147483649", "1e999", "0x10", "\"", "\u221e",
              "Infinity", "-0"}[rnd.nextInt(13)];
          lines.set(line, String.join(",", cells));
        }
        case 1 -> lines.set(line, String.join(",", List.of(cells).subList(0,
            rnd.nextInt(cells.length))));
        case 2 -> lines.set(line, lines.get(line) + ",extra");
        case 3 -> lines.remove(line);
        case 4 -> lines.add(rnd.nextInt(lines.size() + 1), lines.get(line));
        case 5 -> lines.set(0, lines.get(0).replaceFirst("[a-z]", "Q"));
        case 6 -> lines.set(line, "\"" + lines.get(line));
        case 7 -> lines.set(0, "\ufeff" + lines.get(0));
        default -> lines.subList(1, lines.size()).clear();
      }
      if (lines.isEmpty()) {
        lines.add("");
      }
    }
    return String.join("\n", lines);
  }

  private static final int[] WORDS = {0, 1, -1, 2, 7, 8, 64, 65, 255, 256, 65535, 65536,
      Integer.MAX_VALUE, Integer.MIN_VALUE, 0x47535450};

  /** Flips bits, replaces, inserts, drops or swaps words, or cuts the image short. */
  public static int[] image(SplittableRandom rnd, int[] image) {
    List<Integer> w = new ArrayList<>();
    for (int v : image) {
      w.add(v);
    }
    int n = 1 + rnd.nextInt(3);
    for (int i = 0; i < n && !w.isEmpty(); i++) {
      int at = rnd.nextInt(w.size());
      switch (rnd.nextInt(6)) {
        case 0 -> w.set(at, w.get(at) ^ (1 << rnd.nextInt(32)));
        case 1 -> w.set(at, WORDS[rnd.nextInt(WORDS.length)]);
        case 2 -> w.set(at, rnd.nextInt());
        case 3 -> w.add(at, WORDS[rnd.nextInt(WORDS.length)]);
        case 4 -> w.subList(at, w.size()).clear();
        default -> {
          int other = rnd.nextInt(w.size());
          int v = w.get(at);
          w.set(at, w.get(other));
          w.set(other, v);
        }
      }
    }
    return w.stream().mapToInt(Integer::intValue).toArray();
  }
}
