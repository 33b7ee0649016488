package io.gstm.cli;

import io.gstm.core.engine.Engine;
import io.gstm.core.soak.Soak;
import io.gstm.core.soak.SoakCases;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gstm soak}: randomized batches for a given time, every one checked by its workload's
 * exact verifier, the history checker and the serial replay; exits 1 on any violation.
 */
@Command(name = "soak", mixinStandardHelpOptions = true,
    description = "Run randomized batches (bank, semantic bank, vacation, producer-consumer, "
        + "k-means, memcached, random transaction programs; random sizes, contention, "
        + "PR-STM and CSMV variants, semantic policies) for a given time with every verifier "
        + "and the history checker on; print progress and a summary, exit 1 on any violation.")
final class SoakCommand extends EngineCommand {
  @Option(names = "--duration", defaultValue = "5m",
      description = "How long to start new batches: a number and a unit, ms, s, m or h "
          + "(e.g. 90s, 30m; default ${DEFAULT-VALUE}).")
  String duration;

  @Option(names = "--seed",
      description = "Seed of the run (default: drawn from the clock, and printed).")
  Long seed;

  @Option(names = "--batches",
      description = "Stop after this many batches, even if time is left (default: no limit).")
  Long batches;

  @Option(names = "--families", split = ",",
      description = "Workload families to draw from (default: all): bank, semantic-bank, "
          + "vacation, producer-consumer, kmeans, memcached, random-programs, data-structures.")
  List<String> families;

  @Option(names = "--batch-seed",
      description = "Run only the batch this seed draws (a violation names its batch seed).")
  Long batchSeed;

  @Option(names = "--batch-timeout", defaultValue = "120s",
      description = "A batch running longer is a violation (a hang) and ends the soak "
          + "(default ${DEFAULT-VALUE}).")
  String batchTimeout;

  @Option(names = "--quiet", description = "No progress bar (the summary is still printed).")
  boolean quiet;

  @Override
  Run prepare() {
    Duration time = parseDuration("duration", duration);
    Duration timeout = parseDuration("batch-timeout", batchTimeout);
    if (batches != null) {
      Checks.atLeast("batches", batches, 1);
    }
    Set<SoakCases.Family> chosen = families(families);
    long runSeed = seed != null ? seed : System.nanoTime() ^ System.currentTimeMillis() << 20;
    Soak.Settings settings = new Soak.Settings(time, runSeed,
        batches == null ? Long.MAX_VALUE : batches, chosen, timeout);
    return e -> {
      Soak.Summary s;
      if (batchSeed != null) {
        System.out.println("soak: the batch of seed " + batchSeed + ": "
            + SoakCases.draw(batchSeed));
        s = Soak.runBatch(e, batchSeed, timeout, (i, c, check, sofar) -> report(c, check, e));
      } else {
        System.out.printf("soak: %s on %s, seed %d (rerun: --seed %d)%n", format(time),
            e.name(), runSeed, runSeed);
        s = run(e, settings);
      }
      summary(s, e);
      return s.ok() ? 0 : 1;
    };
  }

  private Soak.Summary run(Engine e, Soak.Settings settings) {
    long total = Math.max(1, settings.duration().toSeconds());
    ProgressBar bar = quiet ? null : new ProgressBarBuilder().setTaskName("soak")
        .setInitialMax(total).setUnit(" s", 1).setStyle(ProgressBarStyle.ASCII)
        .setUpdateIntervalMillis(1000).continuousUpdate().build();
    try {
      return Soak.run(e, settings, (i, c, check, sofar) -> {
        report(c, check, e);
        if (bar != null) {
          Soak.Counts n = sofar.counts();
          bar.stepTo(Math.min(total, sofar.elapsed().toSeconds()));
          bar.setExtraMessage(String.format(" %,d batches, %,d tx, %d violation(s)",
              n.batches(), n.transactions(), n.violated()));
        }
      });
    } finally {
      if (bar != null) {
        bar.close();
      }
    }
  }

  /** A violation is printed as it happens, with how to run its batch again. */
  private void report(SoakCases.Case c, SoakCases.Check check, Engine e) {
    if (!check.ok()) {
      System.out.println("VIOLATION in " + c);
      for (String v : check.violations()) {
        System.out.println("  " + v);
      }
      System.out.println("  rerun: gstm soak --engine " + e.name().replace("cuda", "gpu")
          + " --batch-seed " + c.seed());
    }
  }

  private static void summary(Soak.Summary s, Engine e) {
    Soak.Counts n = s.counts();
    Soak.Heap heap = s.heap();
    System.out.printf("soak summary: %s on %s (%s), seed %d%n", format(s.elapsed()), e.name(),
        e.device(), s.seed());
    System.out.printf("batches checked: %,d; transactions checked: %,d (committed %,d; "
        + "abandoned at the retry limit %,d, at the semantic limit %,d)%n", n.batches(),
        n.transactions(), n.committed(), n.abandoned(), n.abandonedSemantic());
    StringBuilder per = new StringBuilder();
    for (Map.Entry<SoakCases.Family, long[]> f : s.perFamily().entrySet()) {
      per.append(per.length() == 0 ? "" : ", ").append(f.getKey().label()).append(' ')
          .append(String.format("%,d (%,d tx)", f.getValue()[0], f.getValue()[1]));
    }
    System.out.println("per family: " + per);
    System.out.printf("heap: max used %,d MB of %s; live after a full collection: %,d MB "
        + "after the first batch, %,d MB at the end, %,d MB at most%n", heap.maxUsed() >> 20,
        heap.limit() < 0 ? "no limit" : String.format("%,d MB", heap.limit() >> 20),
        heap.firstLive() >> 20, heap.lastLive() >> 20, heap.maxLive() >> 20);
    System.out.printf("slowest batch: %.2f s (batch seed %d)%n", s.slowest().nanos() / 1e9,
        s.slowest().seed());
    System.out.println("violations: " + n.violated() + (s.ok() ? " (OK)" : " (FAILED)"));
    for (String v : s.violations()) {
      System.out.println("  " + v);
    }
  }

  private static Set<SoakCases.Family> families(List<String> names) {
    if (names == null || names.isEmpty()) {
      return EnumSet.allOf(SoakCases.Family.class);
    }
    Set<SoakCases.Family> out = EnumSet.noneOf(SoakCases.Family.class);
    for (String n : names) {
      SoakCases.Family found = null;
      for (SoakCases.Family f : SoakCases.Family.values()) {
        if (f.label().equalsIgnoreCase(n.trim())) {
          found = f;
        }
      }
      if (found == null) {
        throw new IllegalArgumentException("families: unknown family '" + n + "', known: "
            + Arrays.stream(SoakCases.Family.values()).map(SoakCases.Family::label).toList());
      }
      out.add(found);
    }
    return out;
  }

  private static final Pattern DURATION = Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h)?");

  /** The longest duration taken: a year and a day. */
  private static final Duration LONGEST = Duration.ofDays(366);

  /** "90s", "30m", "1h", "500ms" or plain seconds, positive; an error names the option. */
  static Duration parseDuration(String option, String text) {
    Matcher m = DURATION.matcher(text == null ? "" : text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(option + ": '" + text + "' is not a duration; give a "
          + "number and a unit: ms, s, m or h (e.g. 90s, 30m)");
    }
    long v = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    Duration d = switch (unit) {
      case "ms" -> Duration.ofMillis(v);
      case "m" -> Duration.ofMinutes(v);
      case "h" -> Duration.ofHours(v);
      default -> Duration.ofSeconds(v);
    };
    if (d.isZero() || d.compareTo(LONGEST) > 0) {
      throw new IllegalArgumentException(option + " must be positive and at most 366 days, "
          + "got '" + text + "'");
    }
    return d;
  }

  private static String format(Duration d) {
    long s = d.toSeconds();
    return s >= 3600 ? String.format("%dh %02dm %02ds", s / 3600, s / 60 % 60, s % 60)
        : s >= 60 ? String.format("%dm %02ds", s / 60, s % 60)
        : String.format("%.1f s", d.toMillis() / 1000.0);
  }
}
