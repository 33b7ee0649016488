package io.gstm.core.engine;

/**
 * Random-access rates of an engine's memory on an array of {@code words} 32-bit words, measured
 * in the same run as a benchmark so that its result can be given as a ratio to a bound.
 *
 * @param device what was measured
 * @param words array size
 * @param readCasPerSecond random read followed by a CAS of the same word
 * @param atomicAddPerSecond random atomic add
 * @param dependentLoadPerSecond loads whose address depends on the previous load
 */
public record LimitsReport(
    String device,
    int words,
    double readCasPerSecond,
    double atomicAddPerSecond,
    double dependentLoadPerSecond) {

  @Override
  public String toString() {
    return String.format(
        "%s, %,d words: random read+CAS %.2f G/s, random atomicAdd %.2f G/s, "
            + "dependent loads %.2f G/s",
        device, words, readCasPerSecond / 1e9, atomicAddPerSecond / 1e9,
        dependentLoadPerSecond / 1e9);
  }
}
