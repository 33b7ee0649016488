package io.gstm.cli;

import io.gstm.bench.BenchRunner;
import io.gstm.bench.Experiment;
import io.gstm.bench.Experiments;
import io.gstm.bench.Scale;
import io.gstm.core.engine.Engine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gstm bench EXPERIMENT...}: each figure of the papers gstm reproduces as one command that
 * writes {@code EXPERIMENT.csv} and {@code EXPERIMENT.png} into the results folder and prints
 * the table. Exits 1 when a batch fails its verifier.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Run paper experiments; write a CSV and a PNG plot per experiment.",
    footer = "%nExperiments: run 'gstm bench --list'.")
final class BenchCommand implements Callable<Integer> {
  @Mixin EngineOption engine = new EngineOption();

  @Parameters(arity = "0..*", paramLabel = "EXPERIMENT",
      description = "Experiments to run, or 'all'.")
  List<String> names = new ArrayList<>();

  @Option(names = "--out", defaultValue = "results",
      description = "Results folder (default ${DEFAULT-VALUE}).")
  Path out;

  @Option(names = "--size", defaultValue = "auto",
      description = "smoke, small or paper; auto = paper on a GPU, small on the JVM engine. "
          + "Default ${DEFAULT-VALUE}.")
  String size;

  @Option(names = "--list", description = "List the experiments and exit.")
  boolean list;

  @Option(names = "--no-progress", description = "No progress bar.")
  boolean noProgress;

  @Option(names = "--replot", paramLabel = "DIR",
      description = "Draw NAME.png from each experiment's NAME.csv in DIR (what a runtime "
          + "without AWT, such as the GPU bundle's, wrote) and exit.")
  Path replot;

  @Override
  public Integer call() {
    if (list) {
      for (Experiment x : Experiments.all()) {
        System.out.printf("%-18s %s%n", x.name(), x.description());
      }
      return 0;
    }
    if (replot != null) {
      for (Path png : BenchRunner.replot(replot)) {
        System.out.println("wrote " + png);
      }
      return 0;
    }
    if (names.isEmpty()) {
      throw new IllegalArgumentException("experiment: name at least one experiment, or all "
          + "(gstm bench --list shows them)");
    }
    // Checked before anything runs: a typo must not cost the experiments before it.
    List<Experiment> chosen = new ArrayList<>();
    for (String n : names) {
      if (n.equals("all")) {
        chosen.addAll(Experiments.all());
      } else {
        chosen.add(Experiments.byName(n));
      }
    }
    Scale requested = size.equals("auto") ? null : Scale.parse(size);
    boolean allOk = true;
    try (Engine e = engine.open().engine()) {
      Scale scale = requested != null ? requested
          : e.name().equals("cuda") ? Scale.PAPER : Scale.SMALL;
      System.out.println("size: " + scale.cliName() + ", results in " + out.toAbsolutePath());
      for (Experiment x : chosen) {
        System.out.printf("%n## %s: %s%n%n", x.name(), x.description());
        BenchRunner.Output o = BenchRunner.run(x, e, scale, out, !noProgress);
        System.out.print(o.table().toMarkdown());
        System.out.println(o.png() != null ? "\nwrote " + o.csv() + " and " + o.png()
            : "\nwrote " + o.csv() + " (no PNG: this Java runtime has no AWT; draw it where "
                + "there is one with gstm bench --replot DIR)");
        // Experiments that run batches say per row whether the exact verifier accepted them.
        boolean ok = !o.table().columns().contains("verified") || o.table().rows().stream()
            .allMatch(r -> Boolean.TRUE.equals(r.get(o.table().index("verified"))));
        if (!ok) {
          System.out.println("VERIFICATION FAILED in " + x.name());
        }
        allOk &= ok;
      }
    }
    return allOk ? 0 : 1;
  }
}
