package io.gstm.bench;

import java.util.List;

/**
 * How an experiment's table is drawn: {@code y} over {@code x}, one line per distinct value of
 * the {@code series} columns; a bar chart when {@code x} is a category.
 *
 * @param title the chart's title
 * @param x column on the horizontal axis
 * @param y numeric column on the vertical axis
 * @param series columns whose values name a line (empty: a single line)
 * @param logX logarithmic horizontal axis (sweeps by powers of two)
 * @param logY logarithmic vertical axis (rates that differ by orders of magnitude)
 * @param bars a bar chart over categories instead of lines
 */
public record Plot(String title, String x, String y, List<String> series, boolean logX,
    boolean logY, boolean bars) {

  public Plot {
    series = List.copyOf(series);
  }

  public static Plot lines(String title, String x, String y, String... series) {
    return new Plot(title, x, y, List.of(series), false, false, false);
  }

  public static Plot logLines(String title, String x, String y, String... series) {
    return new Plot(title, x, y, List.of(series), true, false, false);
  }

  public static Plot bars(String title, String x, String y, String... series) {
    return new Plot(title, x, y, List.of(series), false, false, true);
  }

  /** The same plot with a logarithmic vertical axis. */
  public Plot withLogY() {
    return new Plot(title, x, y, series, logX, true, bars);
  }
}
