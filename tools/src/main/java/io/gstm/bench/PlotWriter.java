package io.gstm.bench;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

/** Draws a {@link ResultTable} as its {@link Plot} says, with XChart (headless). */
public final class PlotWriter {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 520;

  private PlotWriter() {}

  /**
   * Whether this Java runtime can draw: the GPU bundle's trimmed runtime leaves out java.desktop
   * (AWT, about 10 MB, and it would need fonts on the GPU machine), so it writes CSV only.
   */
  public static boolean canDraw() {
    return ModuleLayer.boot().findModule("java.desktop").isPresent();
  }

  /** Writes the chart as a PNG file ({@code png} names it, with or without ".png"). */
  public static void writePng(ResultTable table, Plot plot, Path png) throws IOException {
    String name = png.toString();
    BitmapEncoder.saveBitmap(chart(table, plot), name.endsWith(".png") ? name : name + ".png",
        BitmapEncoder.BitmapFormat.PNG);
  }

  /** The chart as an image (for a notebook's display). */
  public static BufferedImage render(ResultTable table, Plot plot) {
    return BitmapEncoder.getBufferedImage(chart(table, plot));
  }

  private static Chart<?, ?> chart(ResultTable table, Plot plot) {
    System.setProperty("java.awt.headless", "true");
    Map<String, List<Integer>> lines = new LinkedHashMap<>();
    for (int r = 0; r < table.size(); r++) {
      lines.computeIfAbsent(seriesName(table, plot, r), k -> new ArrayList<>()).add(r);
    }
    if (plot.bars()) {
      CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
          .title(plot.title()).xAxisTitle(plot.x()).yAxisTitle(plot.y()).build();
      style(c.getStyler());
      lines.forEach((name, rows) -> c.addSeries(name,
          rows.stream().map(r -> String.valueOf(table.value(r, plot.x()))).toList(),
          rows.stream().map(r -> (Number) table.number(r, plot.y())).toList()));
      return c;
    }
    XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(plot.title())
        .xAxisTitle(plot.x()).yAxisTitle(plot.y()).build();
    style(c.getStyler());
    c.getStyler().setXAxisLogarithmic(plot.logX());
    c.getStyler().setYAxisLogarithmic(plot.logY());
    lines.forEach((name, rows) -> c.addSeries(name,
        rows.stream().mapToDouble(r -> table.number(r, plot.x())).toArray(),
        rows.stream().mapToDouble(r -> table.number(r, plot.y())).toArray()));
    return c;
  }

  private static void style(Styler s) {
    s.setLegendPosition(Styler.LegendPosition.OutsideE);
    s.setChartBackgroundColor(java.awt.Color.WHITE);
  }

  private static String seriesName(ResultTable table, Plot plot, int row) {
    if (plot.series().isEmpty()) {
      return plot.y();
    }
    List<String> parts = new ArrayList<>();
    for (String col : plot.series()) {
      parts.add(col + "=" + table.value(row, col));
    }
    return String.join(", ", parts);
  }
}
