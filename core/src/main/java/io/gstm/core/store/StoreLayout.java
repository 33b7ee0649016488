package io.gstm.core.store;

import java.util.List;

/**
 * The regions of a store and where each one's locks start in the single global lock table.
 * Immutable; validated on construction.
 */
public final class StoreLayout {
  /** The most regions a store can have; the kernels' {@code kMaxRegions}. */
  public static final int MAX_REGIONS = 8;

  private final List<RegionSpec> regions;
  private final int[] lockBase;
  private final int lockCount;
  private final long[] wordBase;
  private final long wordCount;

  /** Builds a layout from one or more regions, in order. */
  public StoreLayout(List<RegionSpec> regions) {
    if (regions == null || regions.isEmpty()) {
      throw new IllegalArgumentException("regions: a store needs at least 1 region");
    }
    if (regions.size() > MAX_REGIONS) {
      throw new IllegalArgumentException(
          "regions: at most " + MAX_REGIONS + " regions per store, got " + regions.size());
    }
    for (int r = 0; r < regions.size(); r++) {
      if (regions.get(r) == null) {
        throw new IllegalArgumentException("regions[" + r + "] is null");
      }
    }
    this.regions = List.copyOf(regions);
    this.lockBase = new int[regions.size()];
    long total = 0;
    for (int r = 0; r < regions.size(); r++) {
      RegionSpec spec = regions.get(r);
      if (spec.sharesLocks()) {
        lockBase[r] = lockBase[lockOwner(regions, r)];
        continue;
      }
      lockBase[r] = (int) total;
      total += spec.lockCount();
      if (total > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "regions: the lock table would need " + total + " locks, more than the limit "
                + Integer.MAX_VALUE + "; raise lockCoverage");
      }
    }
    this.lockCount = (int) total;
    this.wordBase = new long[regions.size()];
    long words = 0;
    for (int r = 0; r < regions.size(); r++) {
      wordBase[r] = words;
      words += regions.get(r).length();
    }
    this.wordCount = words;
  }

  /**
   * The index of the earlier region whose locks region {@code r} shares: named by its
   * {@code locksOf}, with locks of its own, the same length and the same lock coverage.
   */
  private static int lockOwner(List<RegionSpec> regions, int r) {
    RegionSpec spec = regions.get(r);
    String who = "regions[" + r + "] ('" + spec.name() + "'): locksOf '" + spec.locksOf() + "'";
    for (int q = 0; q < r; q++) {
      RegionSpec owner = regions.get(q);
      if (!owner.name().equals(spec.locksOf())) {
        continue;
      }
      if (owner.sharesLocks()) {
        throw new IllegalArgumentException(who + " shares the locks of '" + owner.locksOf()
            + "' itself: name the region that owns them");
      }
      if (owner.length() != spec.length() || owner.lockCoverage() != spec.lockCoverage()) {
        throw new IllegalArgumentException(who + " has length " + owner.length()
            + " and lockCoverage " + owner.lockCoverage() + ", this region " + spec.length()
            + " and " + spec.lockCoverage() + ": regions that share locks must have the same");
      }
      return q;
    }
    throw new IllegalArgumentException(who + " names no earlier region (a region shares the "
        + "locks of one listed before it); the regions before it: "
        + regions.subList(0, r).stream().map(RegionSpec::name).toList());
  }

  /** Words in all regions together: the items of a CSMV store. */
  public long wordCount() {
    return wordCount;
  }

  /** Index of region {@code index}'s first word among all words (its first CSMV item). */
  public long wordBase(int index) {
    checkRegion(index);
    return wordBase[index];
  }

  /** A layout of one region. */
  public static StoreLayout of(RegionSpec... regions) {
    return new StoreLayout(List.of(regions));
  }

  public List<RegionSpec> regions() {
    return regions;
  }

  public int regionCount() {
    return regions.size();
  }

  public RegionSpec region(int index) {
    checkRegion(index);
    return regions.get(index);
  }

  /** Index of the first lock of region {@code index} in the global lock table. */
  public int lockBase(int index) {
    checkRegion(index);
    return lockBase[index];
  }

  /**
   * Whether regions {@code a} and {@code b} are guarded by the same locks (one is {@code b}, or
   * shares the other's, {@link RegionSpec#withLocksOf}): word {@code i} of each by the same lock.
   */
  public boolean sameLocks(int a, int b) {
    checkRegion(a);
    checkRegion(b);
    // Regions with locks of their own start at distinct bases unless one is empty (no locks).
    return a == b || (lockBase[a] == lockBase[b] && regions.get(a).length() > 0
        && regions.get(a).lockCoverage() == regions.get(b).lockCoverage());
  }

  /** Size of the global lock table. */
  public int lockCount() {
    return lockCount;
  }

  /** The global lock that guards word {@code word} of region {@code region}. */
  public int lockOf(int region, int word) {
    return lockBase[region] + word / regions.get(region).lockCoverage();
  }

  /** Throws an IllegalArgumentException naming the limit unless {@code index} is a region. */
  public void checkRegion(int index) {
    if (index < 0 || index >= regions.size()) {
      throw new IllegalArgumentException(
          "region index " + index + " is out of range: the store has " + regions.size()
              + " region(s), valid indices 0.." + (regions.size() - 1));
    }
  }

  /**
   * Throws an IllegalArgumentException that starts with {@code param} unless {@code index} is a
   * region holding {@code type} (for workloads whose batch parameters name regions).
   */
  public void checkRegion(int index, RegionType type, String param) {
    if (index < 0 || index >= regions.size()) {
      throw new IllegalArgumentException(param + ": region index " + index + " is out of "
          + "range: the store has " + regions.size() + " region(s), valid indices 0.."
          + (regions.size() - 1));
    }
    RegionSpec spec = regions.get(index);
    if (spec.type() != type) {
      throw new IllegalArgumentException(param + ": region " + index + " ('" + spec.name()
          + "') holds " + spec.type() + ", expected " + type);
    }
  }

  /**
   * The index of the region named {@code name} holding {@code type}: the check programs make of
   * the regions they declare. An IllegalArgumentException starting with {@code who} says which
   * regions the store has, or which type it holds.
   */
  public int regionNamed(String name, RegionType type, String who) {
    for (int r = 0; r < regions.size(); r++) {
      if (regions.get(r).name().equals(name)) {
        checkRegion(r, type, who + ": region '" + name + "'");
        return r;
      }
    }
    List<String> names = regions.stream().map(s -> s.name() + " " + s.type()).toList();
    throw new IllegalArgumentException(who + " uses region '" + name + "', which the store "
        + "lacks (its regions: " + names + ")");
  }

  /**
   * Layouts are equal when their regions are: the same names, types, lengths, coverage and
   * shared locks.
   */
  @Override
  public boolean equals(Object o) {
    return o instanceof StoreLayout other && regions.equals(other.regions);
  }

  @Override
  public int hashCode() {
    return regions.hashCode();
  }

  @Override
  public String toString() {
    return "StoreLayout" + regions + " locks=" + lockCount;
  }
}
