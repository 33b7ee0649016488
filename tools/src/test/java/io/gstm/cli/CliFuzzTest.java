package io.gstm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.program.CompiledProgram;
import io.gstm.core.soak.RandomPrograms;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.testing.Fuzz;
import io.gstm.core.testing.Mutations;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Seeded fuzzing of the {@code gstm} CLI: each seed draws a command, starts from a small valid
 * argument vector for it and mutates it (unknown options, out-of-range, malformed, empty and
 * huge values, repeated options, missing values, stray arguments, missing and unreadable files;
 * for {@code gstm run} random program text and random state and transaction files, mutated).
 * Every vector must end in a result (status 0; with {@code --history} the checks pass) or a
 * clear error (status 2, a message naming a parameter, the offending argument or the file),
 * never an exception escaping, a stack trace, a failed verification (status 1) or a hang.
 */
class CliFuzzTest {
  private static final Fuzz.Budget BUDGET = new Fuzz.Budget("cli", 30);
  /** A vector running longer than this is a hang. */
  private static final long TIMEOUT_SECONDS = 60;
  private static final ExecutorService RUNNER = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "cli-fuzz");
    t.setDaemon(true);
    return t;
  });

  @AfterAll
  static void stop() {
    RUNNER.shutdownNow();
  }

  static LongStream seeds() {
    return Fuzz.seeds("cli", 300);
  }

  /** Small, valid arguments of each command: a mutation of them must stay cheap to run. */
  private static final Map<String, String[]> PROFILES = new LinkedHashMap<>();

  static {
    PROFILES.put("bank", new String[] {"--engine", "jvm", "--accounts", "128", "--blocks", "2",
        "--threads-per-block", "32", "--tx-per-thread", "2"});
    PROFILES.put("vacation", new String[] {"--engine", "jvm", "--customers", "200",
        "--room-types", "10", "--rooms-per-type", "30", "--blocks", "2", "--threads-per-block",
        "32", "--tx-per-thread", "2", "--semantic-limit", "200"});
    PROFILES.put("limits", new String[] {"--engine", "jvm", "--words", "4096"});
    PROFILES.put("bench-bank", new String[] {"--engine", "jvm", "--accounts", "256", "--k", "2",
        "--threads-per-block", "32", "--blocks", "1,2", "--tx", "256", "--reps", "1"});
    PROFILES.put("bench-semantic", new String[] {"--engine", "jvm", "--accounts", "512",
        "--threads-per-block", "32", "--threads", "64", "--tx-per-thread", "2", "--ratios",
        "0,1", "--thread-sweep", "32", "--coverage-sweep", "1", "--reps", "1"});
    PROFILES.put("bench-csmv", new String[] {"--engine", "jvm", "--accounts", "128",
        "--read-only", "0.5", "--ways", "4", "--cache-items", "256", "--version-sweep", "2",
        "--threads-per-block", "32", "--blocks", "2", "--tx-per-thread", "2", "--reps", "1",
        "--variants", "csmv"});
    PROFILES.put("bench-graph", new String[] {"--engine", "jvm", "--scale", "6", "--edges",
        "400", "--reps", "1"});
    PROFILES.put("bench-kmeans", new String[] {"--engine", "jvm", "--points", "1000", "--reps",
        "1"});
    PROFILES.put("bench-programs", new String[] {"--engine", "jvm", "--accounts", "400",
        "--customers", "200", "--threads-per-block", "32", "--blocks", "1", "--tx-per-thread",
        "2", "--reps", "1", "--warmups", "0"});
    PROFILES.put("bench-ds", new String[] {"--engine", "jvm", "--transactions", "300",
        "--threads-per-block", "32", "--blocks", "2", "--reps", "1", "--warmups", "0",
        "--local-work", "8"});
    PROFILES.put("soak", new String[] {"--engine", "jvm", "--duration", "3s", "--batches",
        "1", "--quiet", "--seed", "1", "--batch-timeout", "40s"});
    PROFILES.put("run", new String[] {"--engine", "jvm", "--semantic-limit", "4"});
  }

  /**
   * Options whose large values are valid and costly (memory or time): they get small or invalid
   * values only, never huge valid ones.
   */
  private static final Set<String> SIZES = Set.of("--accounts", "--customers", "--room-types",
      "--rooms-per-type", "--words", "--tx", "--cache-items", "--scale", "--edges", "--points",
      "--reps", "--warmups", "--threads", "--tx-per-thread", "--blocks", "--thread-sweep",
      "--dims", "--duration", "--batches", "--semantic-limit", "--batch-size",
      "--batch-timeout", "--version-sweep", "--ways", "--k", "--versions", "--transactions",
      "--local-work");

  private static final String[] BAD_NUMBERS = {"0", "-1", "-7", "-2147483648", "2147483648",
      "-2147483649", "9223372036854775808", "99999999999999999999", "1.5", "1e3", "0x1F", "",
      " ", "abc", "12abc", "+3", "\u0663", "NaN", "--", "-"};
  private static final String[] HUGE = {"2147483647", "1000000000", "1073741824", "65536"};
  private static final String[] SMALL = {"1", "2", "3", "7", "16"};
  private static final String[] DOUBLES = {"NaN", "Infinity", "-Infinity", "-0.0", "0", "1",
      "0.5", "1.0000001", "-0.1", "1e308", "4.9e-324", "abc", "", "0x1p-3", "2", "1e-9"};

  /** What one vector did. */
  record Outcome(int status, String output, Throwable thrown) {}

  /** One drawn vector and the names an error message about it may use. */
  record Vector(List<String> args, List<String> mentions, boolean checksWanted) {
    @Override
    public String toString() {
      StringBuilder s = new StringBuilder();
      for (String a : args) {
        String shown = a.length() > 60 ? a.substring(0, 60) + "...(" + a.length() + " chars)"
            : a;
        s.append(s.length() == 0 ? "" : " ").append('\'').append(shown).append('\'');
      }
      return s.toString();
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void everyVectorEndsInAResultOrAClearError(long seed, @TempDir Path dir) throws Exception {
    BUDGET.check(seed);
    SplittableRandom rnd = new SplittableRandom(seed);
    Vector v = draw(rnd, dir);
    Outcome o = execute(v.args());
    String about = String.format("seed %d, gstm %s%noutput:%n%s", seed, v, tail(o.output()));
    assertThat(o.thrown()).as("an exception escaped: %s", about).isNull();
    assertThat(o.output()).as("a stack trace: %s", about).doesNotContain("\tat ")
        .doesNotContain("Exception in thread");
    assertThat(o.status()).as("status (1 = a check failed): %s", about).isIn(0, 2);
    if (o.status() == 2) {
      assertThat(namesSomething(o.output(), v)).as("the error names no parameter, argument "
          + "or file: %s", about).isTrue();
    }
    if (o.status() == 0 && v.checksWanted()) {
      assertThat(o.output()).as(about).doesNotContain("FAILED");
    }
  }

  // ---- drawing -----------------------------------------------------------------------------

  private static Vector draw(SplittableRandom rnd, Path dir) throws IOException {
    List<String> mentions = new ArrayList<>();
    int roll = rnd.nextInt(40);
    if (roll == 0) {
      String junk = junkToken(rnd);
      mentions.add(junk);
      return new Vector(List.of(junk), mentions, false);
    }
    if (roll == 1) {
      return new Vector(List.of(rnd.nextBoolean() ? "--help" : "--version"), mentions, false);
    }
    List<String> names = new ArrayList<>(PROFILES.keySet());
    // gstm run gets a larger share: its inputs are files, programs and CSV.
    String command = rnd.nextInt(3) == 0 ? "run" : names.get(rnd.nextInt(names.size()));
    CommandLine cmd = new CommandLine(new GstmCli()).getSubcommands().get(command);
    List<OptionSpec> options = new ArrayList<>();
    for (OptionSpec o : cmd.getCommandSpec().options()) {
      if (!o.usageHelp() && !o.versionHelp()) {
        options.add(o);
      }
    }
    Map<String, String> values = new LinkedHashMap<>();
    String[] profile = PROFILES.get(command);
    for (int i = 0; i < profile.length; i++) {
      if (i + 1 < profile.length && !profile[i + 1].startsWith("--")) {
        values.put(profile[i], profile[i + 1]);
        i++;
      } else {
        values.put(profile[i], null);
      }
    }
    if (command.equals("run")) {
      runFiles(rnd, dir, values, mentions);
    }
    List<String> extra = new ArrayList<>();
    int mutations = 1 + rnd.nextInt(3);
    for (int m = 0; m < mutations; m++) {
      int kind = rnd.nextInt(100);
      if (kind < 55) {
        OptionSpec o = options.get(rnd.nextInt(options.size()));
        String name = o.longestName();
        mentions.add(name);
        if (o.arity().max() == 0) {
          if (values.containsKey(name)) {
            values.remove(name);
          } else {
            values.put(name, null);
          }
        } else {
          String value = value(rnd, o, dir);
          values.put(name, value);
          mentions.add(value);
        }
      } else if (kind < 65) {
        String junk = "--" + word(rnd);
        mentions.add(junk);
        extra.add(junk);
        if (rnd.nextBoolean()) {
          extra.add(word(rnd));
        }
      } else if (kind < 72) {
        String junk = junkToken(rnd);
        mentions.add(junk);
        extra.add(junk);
      } else if (kind < 79 && !values.isEmpty()) {
        // The same option twice.
        List<String> present = new ArrayList<>(values.keySet());
        String name = present.get(rnd.nextInt(present.size()));
        mentions.add(name);
        extra.add(name);
        if (values.get(name) != null) {
          extra.add(values.get(name));
        }
      } else if (kind < 85) {
        // An option that needs a value, last and without one.
        OptionSpec o = options.get(rnd.nextInt(options.size()));
        if (o.arity().min() > 0) {
          mentions.add(o.longestName());
          values.remove(o.longestName());
          extra.add(o.longestName());
        }
      } else if (kind < 92 && !values.isEmpty()) {
        // An option left out (not a size: its default may be a long run, not an error).
        List<String> present = new ArrayList<>(values.keySet());
        String name = present.get(rnd.nextInt(present.size()));
        if (!SIZES.contains(name)) {
          mentions.add(name);
          values.remove(name);
        }
      } else if (kind < 95) {
        extra.add(0, rnd.nextBoolean() ? "-h" : "-V");
      } else {
        // --opt=value form.
        OptionSpec o = options.get(rnd.nextInt(options.size()));
        if (o.arity().min() > 0) {
          mentions.add(o.longestName());
          values.remove(o.longestName());
          String value = value(rnd, o, dir);
          mentions.add(value);
          extra.add(o.longestName() + "=" + value);
        }
      }
    }
    List<String> args = new ArrayList<>();
    args.add(command);
    for (Map.Entry<String, String> e : values.entrySet()) {
      args.add(e.getKey());
      if (e.getValue() != null) {
        args.add(e.getValue());
      }
    }
    for (String e : extra) {
      args.add(1 + rnd.nextInt(args.size()), e);
    }
    boolean checks = args.contains("--history") || args.contains("--record-order")
        || command.startsWith("bench")
        || command.equals("bank") || command.equals("vacation") || command.equals("soak");
    return new Vector(args, mentions, checks);
  }

  /** A value for option {@code o}: often wrong, sometimes right. */
  private static String value(SplittableRandom rnd, OptionSpec o, Path dir) throws IOException {
    String name = o.longestName();
    Class<?> type = o.isMultiValue() ? o.auxiliaryTypes()[0] : o.type();
    if (o.isMultiValue()) {
      int n = rnd.nextInt(4);
      if (n == 0) {
        return rnd.nextBoolean() ? "," : "";
      }
      List<String> parts = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        parts.add(scalar(rnd, name, type, dir));
      }
      return String.join(",", parts);
    }
    return scalar(rnd, name, type, dir);
  }

  private static String scalar(SplittableRandom rnd, String name, Class<?> type, Path dir)
      throws IOException {
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
      int roll = rnd.nextInt(10);
      if (roll < 4) {
        return SMALL[rnd.nextInt(SMALL.length)];
      }
      if (roll < 6 && !SIZES.contains(name)) {
        return HUGE[rnd.nextInt(HUGE.length)];
      }
      if (roll < 7 && (type == long.class || type == Long.class) && !SIZES.contains(name)) {
        return rnd.nextBoolean() ? "9223372036854775807" : "-9223372036854775808";
      }
      return BAD_NUMBERS[rnd.nextInt(BAD_NUMBERS.length)];
    }
    if (type == double.class || type == Double.class) {
      return DOUBLES[rnd.nextInt(DOUBLES.length)];
    }
    if (type == Path.class) {
      return path(rnd, dir);
    }
    String[] known = switch (name) {
      case "--engine" -> new String[] {"jvm", "jvm", "JVM", " jvm ", "gpu", "auto", "cuda", ""};
      case "--policy" -> new String[] {"postpone", "retry-in-place", "RETRY-IN-PLACE", "wait"};
      case "--algorithm", "--algorithms" -> new String[] {"prstm", "csmv", "csmv-nocv",
          "csmv-onlycs", "jvstm-gpu", "tl2", "gpu-stm", "blocking", "obstruction-free:none",
          "blocking:linear:1:1", "obstruction-free:exponential:0:9"};
      case "--variants" -> new String[] {"csmv", "csmv-nocv", "jvstm-gpu", "prstm"};
      case "--workload", "--workloads" -> new String[] {"bank", "vacation", "memcached"};
      case "--kind" -> new String[] {"sssp", "cc", "pagerank"};
      case "--order" -> new String[] {"auto", "degree", "input", "random"};
      case "--parts" -> new String[] {"bank", "memcached", "versions", "all"};
      case "--families" -> new String[] {"bank", "kmeans", "memcached", "random-programs",
          "chess"};
      case "--duration", "--batch-timeout" -> new String[] {"2s", "500ms", "1", "0", "-1s",
          "30x", "1h30m", "999999999h", "PT5S", ""};
      default -> new String[] {"x"};
    };
    int roll = rnd.nextInt(10);
    if (roll < 7) {
      return known[rnd.nextInt(known.length)];
    }
    return junkToken(rnd);
  }

  private static final String[] WORDS = {"accounts", "foo", "k", "engine", "x", "threads",
      "Accounts", "help2", "seed", "", "-", "history"};

  private static String word(SplittableRandom rnd) {
    return WORDS[rnd.nextInt(WORDS.length)] + (rnd.nextBoolean() ? "" : rnd.nextInt(100));
  }

  private static String junkToken(SplittableRandom rnd) {
    return switch (rnd.nextInt(9)) {
      case 0 -> "";
      case 1 -> " ";
      case 2 -> "x".repeat(10_000);
      case 3 -> "\u0000";
      case 4 -> "\u221e";
      case 5 -> "-1";
      case 6 -> "banks";
      case 7 -> "--=";
      default -> "@" + word(rnd);
    };
  }

  // ---- gstm run: files ----------------------------------------------------------------------

  /** A missing, empty, unreadable or odd file, or a directory. */
  private static String path(SplittableRandom rnd, Path dir) throws IOException {
    Path p = dir.resolve("f" + rnd.nextInt(1_000_000) + ".csv");
    switch (rnd.nextInt(6)) {
      case 0 -> {
        return dir.resolve("missing-" + rnd.nextInt(1000) + ".csv").toString();
      }
      case 1 -> {
        return dir.toString();
      }
      case 2 -> Files.writeString(p, "");
      case 3 -> Files.write(p, new byte[] {(byte) 0xff, (byte) 0xfe, 'a', ',', (byte) 0xc3});
      case 4 -> Files.writeString(p, "\"unclosed,quote\nx,y\n");
      default -> {
        return "";
      }
    }
    return p.toString();
  }

  /** Program, state and transaction files from a random case, each maybe mutated. */
  private static void runFiles(SplittableRandom rnd, Path dir, Map<String, String> values,
      List<String> mentions) throws IOException {
    RandomPrograms.Case c = RandomPrograms.generate(rnd.nextLong(), 1 + rnd.nextInt(60), 8, 1,
        rnd.nextBoolean());
    String program = c.text();
    String state = RandomCaseCsv.state(c);
    String txs = RandomCaseCsv.transactions(c, rnd.nextBoolean());
    int roll = rnd.nextInt(10);
    if (roll < 3) {
      program = Mutations.program(rnd, program, true);
    } else if (roll < 6) {
      state = Mutations.csv(rnd, state);
    } else if (roll < 9) {
      txs = Mutations.csv(rnd, txs);
    }
    Path p = dir.resolve("programs.gstm");
    Path s = dir.resolve("state.csv");
    Path t = dir.resolve("txs.csv");
    Files.writeString(p, program);
    Files.writeString(s, state);
    Files.writeString(t, txs);
    values.put("--program", p.toString());
    values.put("--state", s.toString());
    values.put("--transactions", t.toString());
    values.put("--out-state", dir.resolve("out.csv").toString());
    values.put("--outcomes", dir.resolve("outcomes.csv").toString());
    if (rnd.nextBoolean()) {
      values.put("--history", null);
    }
    if (rnd.nextInt(3) == 0) {
      values.put("--record-order", null);
    }
    if (rnd.nextInt(3) == 0) {
      values.put("--batch-size", Integer.toString(1 + rnd.nextInt(40)));
    }
    mentions.add("programs.gstm");
    mentions.add("state.csv");
    mentions.add("txs.csv");
    mentions.add("program");
    for (CompiledProgram q : c.programs().programs()) {
      mentions.add(q.name());
      mentions.addAll(q.columnNames());
    }
    for (RegionSpec r : c.layout().regions()) {
      mentions.add(r.name());
    }
  }

  // ---- running -----------------------------------------------------------------------------

  /** Runs the CLI in this JVM with a time limit; its output and what it threw. */
  static Outcome execute(List<String> args) {
    CliRun.Captured<Object> c = CliRun.capture(() -> {
      Future<Integer> f = RUNNER.submit(() -> GstmCli.execute(args.toArray(new String[0])));
      try {
        return f.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        f.cancel(true);
        return new AssertionError("no result within " + TIMEOUT_SECONDS + " s (a hang?)");
      } catch (java.util.concurrent.ExecutionException e) {
        return e.getCause();
      }
    });
    return c.value() instanceof Integer status ? new Outcome(status, c.output(), null)
        : new Outcome(-1, c.output(), (Throwable) c.value());
  }

  /** picocli's usage errors, which quote the offending option or argument. */
  private static final String[] USAGE_ERRORS = {"Unmatched argument", "Unknown option",
      "Missing required", "Invalid value for option", "Expected parameter",
      "should be specified only once", "Unmatched arguments"};

  /** Whether the error output names one of the vector's mutated names, or some option. */
  static boolean namesSomething(String output, Vector v) {
    for (String u : USAGE_ERRORS) {
      if (output.contains(u)) {
        return true;
      }
    }
    String flat = normalize(output);
    for (String m : v.mentions()) {
      String n = normalize(m);
      if (n.length() >= 2 && flat.contains(n)) {
        return true;
      }
      if (n.length() == 1 && output.toLowerCase(Locale.ROOT).matches("(?s).*\\b" + n + "\\b.*")) {
        return true;
      }
    }
    // An error about another parameter of the same command (e.g. k against the account count).
    CommandLine cmd = new CommandLine(new GstmCli()).getSubcommands().get(v.args().get(0));
    if (cmd != null) {
      for (OptionSpec o : cmd.getCommandSpec().options()) {
        String n = normalize(o.longestName());
        if (n.length() >= 3 && flat.contains(n)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Lower case, letters and digits only: "--threads-per-block" and "threadsPerBlock" meet. */
  private static String normalize(String s) {
    return s.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}]", "");
  }

  private static String tail(String s) {
    return s.length() > 4000 ? "..." + s.substring(s.length() - 4000) : s;
  }
}
