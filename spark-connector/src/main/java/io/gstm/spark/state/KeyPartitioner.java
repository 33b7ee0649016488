package io.gstm.spark.state;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import java.io.Serializable;
import java.util.Arrays;

/**
 * Which partition of a {@link TxState} owns a key: by a hash of the key ({@code bounds} null), or
 * by range ({@code bounds}: {@code partitions - 1} ascending split points; partition {@code i}
 * holds the keys in {@code [bounds[i-1], bounds[i])}).
 */
@DefaultSerializer(JavaSerializer.class)
record KeyPartitioner(int partitions, long[] bounds) implements Serializable {

  KeyPartitioner {
    if (partitions < 1 || partitions > 100_000) {
      throw new IllegalArgumentException("partitions must be between 1 and 100000, got "
          + partitions);
    }
    if (bounds != null) {
      if (bounds.length != partitions - 1) {
        throw new IllegalArgumentException("range bounds: expected " + (partitions - 1)
            + " split points for " + partitions + " partitions, got " + bounds.length);
      }
      for (int i = 1; i < bounds.length; i++) {
        if (bounds[i] < bounds[i - 1]) {
          throw new IllegalArgumentException("range bounds must ascend: " + bounds[i - 1]
              + " then " + bounds[i]);
        }
      }
      bounds = bounds.clone();
    }
  }

  static KeyPartitioner hash(int partitions) {
    return new KeyPartitioner(partitions, null);
  }

  boolean isRange() {
    return bounds != null;
  }

  /** The partition that owns {@code key}. */
  int owner(long key) {
    if (partitions == 1) {
      return 0;
    }
    if (bounds == null) {
      // A power of two by a mask, the same partition as the division gives: the routing asks
      // for every key of every transaction, and a 64-bit division was 40% of its time.
      return (partitions & (partitions - 1)) == 0 ? (int) (mix(key) & (partitions - 1))
          : (int) Math.floorMod(mix(key), (long) partitions);
    }
    int i = Arrays.binarySearch(bounds, key);
    if (i >= 0) {
      while (i < bounds.length && bounds[i] == key) {
        i++; // a split point starts the next partition
      }
      return i;
    }
    return -i - 1;
  }

  /** MurmurHash3's 64-bit finaliser: neighbouring keys land in different partitions. */
  static long mix(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }

  String describe() {
    return bounds == null ? "hash over " + partitions + " partitions"
        : "range over " + partitions + " partitions, split at " + Arrays.toString(bounds);
  }
}
