package io.gstm.bench;

import io.gstm.core.engine.Engine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/** Runs an experiment and writes {@code NAME.csv} and {@code NAME.png} into a results folder. */
public final class BenchRunner {
  private BenchRunner() {}

  /**
   * What one run produced.
   *
   * @param table the rows measured
   * @param csv the CSV file written
   * @param png the plot written; null where this Java runtime cannot draw (see
   *     {@link PlotWriter#canDraw}): {@link #replot} draws it later from the CSV
   */
  public record Output(ResultTable table, Path csv, Path png) {}

  /** Runs {@code experiment} at {@code scale} and writes its files under {@code outDir}. */
  public static Output run(Experiment experiment, Engine engine, Scale scale, Path outDir,
      boolean progress) {
    ResultTable table = measure(experiment, engine, scale, progress);
    try {
      Files.createDirectories(outDir);
      Path csv = outDir.resolve(experiment.name() + ".csv");
      table.writeCsv(csv);
      return new Output(table, csv, PlotWriter.canDraw() ? plot(experiment, table, outDir)
          : null);
    } catch (IOException e) {
      throw new UncheckedIOException("writing results of " + experiment.name() + " under "
          + outDir + ": " + e.getMessage(), e);
    }
  }

  /**
   * Draws NAME.png for every experiment whose NAME.csv is in {@code dir} (a run on a runtime
   * that could not draw, such as the GPU bundle's); returns the files written.
   */
  public static List<Path> replot(Path dir) {
    if (!PlotWriter.canDraw()) {
      throw new IllegalArgumentException("replot: this Java runtime has no java.desktop module "
          + "(AWT), so it cannot draw; run it with a full JDK");
    }
    List<Path> written = new ArrayList<>();
    try {
      for (Experiment x : Experiments.all()) {
        Path csv = dir.resolve(x.name() + ".csv");
        if (Files.exists(csv)) {
          written.add(plot(x, ResultTable.readCsv(csv), dir));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("replot: reading or writing under " + dir + ": "
          + e.getMessage(), e);
    }
    if (written.isEmpty()) {
      throw new IllegalArgumentException("replot: no experiment's CSV (NAME.csv, NAME one of "
          + Experiments.all().stream().map(Experiment::name).toList() + ") in " + dir);
    }
    return written;
  }

  private static Path plot(Experiment experiment, ResultTable table, Path dir)
      throws IOException {
    Path png = dir.resolve(experiment.name() + ".png");
    PlotWriter.writePng(table, experiment.plot(), png);
    return png;
  }

  /** Runs {@code experiment} and returns its table without writing anything (notebooks). */
  public static ResultTable measure(Experiment experiment, Engine engine, Scale scale,
      boolean progress) {
    List<Experiment.Step> steps = experiment.steps(engine, scale);
    ResultTable table = new ResultTable(experiment.columns());
    // A bar only where there is something to wait for: one-step experiments end at once.
    try (ProgressBar bar = progress && steps.size() > 1 ? bar(experiment, steps.size()) : null) {
      for (Experiment.Step step : steps) {
        step.run(table);
        if (bar != null) {
          bar.step();
        }
      }
    }
    return table;
  }

  private static ProgressBar bar(Experiment experiment, int steps) {
    return new ProgressBarBuilder().setTaskName(experiment.name()).setInitialMax(steps)
        .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(1000).continuousUpdate()
        .build();
  }
}
