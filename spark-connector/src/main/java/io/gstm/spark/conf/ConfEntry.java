package io.gstm.spark.conf;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * One typed {@code spark.gstm.*} setting: its key, documentation, default, parser and check.
 * Immutable; {@link GstmConf} holds every entry.
 *
 * @param <T> the value type
 */
public final class ConfEntry<T> {
  private final String key;
  private final String doc;
  private final T defaultValue;
  private final String type;
  private final Function<String, T> parser;
  private final Check<T> check;

  /** Validates a parsed value; returns null when it is fine, else what is wrong. */
  @FunctionalInterface
  interface Check<T> {
    String problem(T value);
  }

  ConfEntry(String key, String type, T defaultValue, String doc, Function<String, T> parser,
      Check<T> check) {
    this.key = Objects.requireNonNull(key);
    this.type = type;
    this.defaultValue = defaultValue;
    this.doc = doc;
    this.parser = parser;
    this.check = check;
    String bad = check.problem(defaultValue);
    if (bad != null) {
      throw new IllegalStateException("default of " + key + " is invalid: " + bad);
    }
  }

  public String key() {
    return key;
  }

  public String doc() {
    return doc;
  }

  public T defaultValue() {
    return defaultValue;
  }

  /** The value's type in words ("int", "boolean", "one of auto, gpu, jvm"). */
  public String type() {
    return type;
  }

  /**
   * Parses and validates {@code raw} (null means the default). Throws IllegalArgumentException
   * naming the key, the bad value and the limit.
   */
  public T parse(String raw) {
    if (raw == null) {
      return defaultValue;
    }
    T value;
    try {
      value = parser.apply(raw.trim());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          key + ": cannot parse '" + raw + "' as " + type + problemSuffix(e), e);
    }
    String bad = check.problem(value);
    if (bad != null) {
      throw new IllegalArgumentException(key + ": " + bad + ", got '" + raw + "'");
    }
    return value;
  }

  private static String problemSuffix(RuntimeException e) {
    return e instanceof IllegalArgumentException && e.getMessage() != null
        && !(e instanceof NumberFormatException) ? " (" + e.getMessage() + ")" : "";
  }

  /** The default as it is written in a Spark configuration. */
  public String defaultString() {
    return defaultValue instanceof Enum<?> en
        ? en.name().toLowerCase(Locale.ROOT) : String.valueOf(defaultValue);
  }

  @Override
  public String toString() {
    return key + "=" + defaultString();
  }
}
