package io.gstm.core.jvm;

import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvMemory;
import io.gstm.core.store.CsmvWordStore;
import io.gstm.core.store.StoreLayout;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A CSMV store on the heap: per item (every 32-bit word of every region) a head (the position of
 * its newest version; position p lives in ring slot p mod N) and N slots, each one 64-bit word
 * {@code commitTimestamp << 32 | value} so that a value and its timestamp are always read
 * together; the global timestamp; and the commit record (write sets of the last R commits).
 * Twin of {@code gstm/csmv.cuh}: the same ring protocol.
 */
final class JvmCsmvStore extends CsmvWordStore {
  private final JvmEngine engine;
  final int versions;
  final int items;
  final AtomicIntegerArray heads;
  final AtomicLongArray slots;
  final AtomicInteger gts = new AtomicInteger();
  /** Commit record: the items commit c wrote sit at c mod R. Guarded by {@link #commitLock}. */
  final int[][] record;
  final ReentrantLock commitLock = new ReentrantLock();

  JvmCsmvStore(JvmEngine engine, StoreLayout layout, Algorithm algorithm) {
    super(layout, algorithm);
    checkItems(layout);
    this.engine = engine;
    this.versions = algorithm.versions();
    this.items = (int) layout.wordCount();
    this.heads = new AtomicIntegerArray(items);
    this.slots = new AtomicLongArray(Math.multiplyExact(items, versions));
    this.record = new int[algorithm.recordEntries()][];
  }

  /** The heap's slots are one Java array: a store needs items it can index. */
  private static void checkItems(StoreLayout layout) {
    if (layout.wordCount() > Integer.MAX_VALUE / Algorithm.MAX_VERSIONS) {
      throw new IllegalArgumentException("regions: " + layout.wordCount() + " words exceed the "
          + "CSMV limit of " + Integer.MAX_VALUE / Algorithm.MAX_VERSIONS + " items");
    }
  }

  JvmEngine engine() {
    return engine;
  }

  @Override
  public CsmvMemory csmvMemory() {
    // heads (4 B) + slots (8 B each): the paper's 4 + (4 + 4) x N per 4-byte item.
    return CsmvMemory.of(items, 4, versions, 4L * heads.length() + 8L * slots.length());
  }

  int item(int region, int index) {
    return (int) layout().wordBase(region) + index;
  }

  /** The newest value of an item (outside transactions). */
  int newest(int item) {
    return (int) slots.get(item * versions + heads.get(item) % versions);
  }

  /** Replaces an item by one version at timestamp 0 (outside transactions, between batches). */
  private void reset(int item, int bits) {
    heads.set(item, 0);
    for (int v = 0; v < versions; v++) {
      slots.set(item * versions + v, 0L);
    }
    slots.set(item * versions, bits & 0xffffffffL);
  }

  @Override
  protected void putWords(int region, int[] bits) {
    int base = item(region, 0);
    for (int i = 0; i < bits.length; i++) {
      reset(base + i, bits[i]);
    }
  }

  @Override
  protected int[] getWords(int region) {
    int[] out = new int[layout().region(region).length()];
    int base = item(region, 0);
    for (int i = 0; i < out.length; i++) {
      out[i] = newest(base + i);
    }
    return out;
  }

  @Override
  public int[] lockVersions() {
    checkOpen();
    int[] out = new int[items];
    for (int i = 0; i < items; i++) {
      out[i] = heads.get(i);
    }
    return out;
  }

  /** Everything a failed batch must put back. */
  record Snapshot(int[] heads, long[] slots, int gts, int[][] record) {}

  Snapshot snapshot() {
    long[] s = new long[slots.length()];
    for (int i = 0; i < s.length; i++) {
      s[i] = slots.get(i);
    }
    return new Snapshot(lockVersions(), s, gts.get(), record.clone());
  }

  void restore(Snapshot snap) {
    for (int i = 0; i < items; i++) {
      heads.set(i, snap.heads()[i]);
    }
    for (int i = 0; i < snap.slots().length; i++) {
      slots.set(i, snap.slots()[i]);
    }
    gts.set(snap.gts());
    System.arraycopy(snap.record(), 0, record, 0, record.length);
  }
}
