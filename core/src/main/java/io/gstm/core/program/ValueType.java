package io.gstm.core.program;

import io.gstm.core.store.RegionType;
import java.util.Locale;

/**
 * The types a transaction program computes with. The four numeric types are those of store
 * regions and batch columns; {@code bool} is what comparisons and logic produce.
 *
 * <p>A value lives in a 64-bit register: {@code int64} and {@code float64} use all of it,
 * {@code int32} and {@code float32} only the low 32 bits (their raw bits), {@code bool} is 0 or 1.
 */
public enum ValueType {
  INT32(0),
  INT64(1),
  FLOAT32(2),
  FLOAT64(3),
  BOOL(4);

  private final int code;
  /** The name in lower case: {@code int32} ... {@code bool}. */
  private final String keyword = name().toLowerCase(Locale.ROOT);

  ValueType(int code) {
    this.code = code;
  }

  /** The code the bytecode uses (the numeric ones equal {@link RegionType#code()}). */
  public int code() {
    return code;
  }

  /** How the type is spelled in program text. */
  public String keyword() {
    return keyword;
  }

  public boolean isNumeric() {
    return this != BOOL;
  }

  public boolean isInteger() {
    return this == INT32 || this == INT64;
  }

  public boolean isFloat() {
    return this == FLOAT32 || this == FLOAT64;
  }

  /** True for the 64-bit types. */
  public boolean isWide() {
    return this == INT64 || this == FLOAT64;
  }

  /** The region type holding values of this type; BOOL has none. */
  public RegionType regionType() {
    return switch (this) {
      case INT32 -> RegionType.INT32;
      case INT64 -> RegionType.INT64;
      case FLOAT32 -> RegionType.FLOAT32;
      case FLOAT64 -> RegionType.FLOAT64;
      case BOOL -> throw new IllegalArgumentException("bool has no region type");
    };
  }

  /**
   * A value's register bits (as stores and batch columns hold them) from a number: 32-bit
   * types sign-extended, floats by their raw bits. BOOL has none.
   */
  public long bits(Number v) {
    return switch (this) {
      case INT32 -> v.intValue();
      case INT64 -> v.longValue();
      case FLOAT32 -> Float.floatToRawIntBits(v.floatValue());
      case FLOAT64 -> Double.doubleToRawLongBits(v.doubleValue());
      case BOOL -> throw new IllegalArgumentException("bool has no register bits");
    };
  }

  /** The boxed value ({@code Integer}, {@code Long}, {@code Float}, {@code Double}) of bits. */
  public Object box(long bits) {
    return switch (this) {
      case INT32 -> (int) bits;
      case INT64 -> bits;
      case FLOAT32 -> Float.intBitsToFloat((int) bits);
      case FLOAT64 -> Double.longBitsToDouble(bits);
      case BOOL -> throw new IllegalArgumentException("bool has no boxed value");
    };
  }

  public static ValueType of(RegionType type) {
    return switch (type) {
      case INT32 -> INT32;
      case INT64 -> INT64;
      case FLOAT32 -> FLOAT32;
      case FLOAT64 -> FLOAT64;
    };
  }

  public static ValueType ofCode(int code) {
    for (ValueType t : values()) {
      if (t.code == code) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown value type code " + code);
  }

  /** The type spelled {@code keyword}, or null. */
  public static ValueType ofKeyword(String keyword) {
    for (ValueType t : values()) {
      if (t.keyword.equals(keyword.toLowerCase(Locale.ROOT))) {
        return t;
      }
    }
    return null;
  }

  /**
   * Java's binary numeric promotion: the type both operands of an arithmetic operator convert
   * to (float64 if either is, else float32 if either is, else int64 if either is, else int32).
   */
  public static ValueType promote(ValueType a, ValueType b) {
    if (a == FLOAT64 || b == FLOAT64) {
      return FLOAT64;
    }
    if (a == FLOAT32 || b == FLOAT32) {
      return FLOAT32;
    }
    if (a == INT64 || b == INT64) {
      return INT64;
    }
    return INT32;
  }

  /** True when a value of {@code from} converts to this type implicitly (a widening). */
  public boolean acceptsImplicitly(ValueType from) {
    if (from == this) {
      return true;
    }
    if (this == BOOL || from == BOOL) {
      return false;
    }
    return promote(this, from) == this;
  }

  @Override
  public String toString() {
    return keyword;
  }
}
