package io.gstm.core.cuda;

import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvMemory;
import io.gstm.core.store.CsmvWordStore;
import io.gstm.core.store.StoreLayout;
import java.util.List;
import jcuda.Pointer;

/**
 * A CSMV store in device memory: heads (4 B per item), version slots (8 B per item and version:
 * commit timestamp and value) and the global timestamp. Layout as {@code gstm/csmv.cuh} expects.
 */
final class CudaCsmvStore extends CsmvWordStore {
  private final CudaEngine engine;
  final int versions;
  final long items;
  final DeviceBuffer heads;
  final DeviceBuffer slots;
  final DeviceBuffer gts;

  CudaCsmvStore(CudaEngine engine, StoreLayout layout, Algorithm algorithm) {
    super(layout, algorithm);
    this.engine = engine;
    this.versions = algorithm.versions();
    this.items = layout.wordCount();
    DeviceBuffer[] held = DeviceBuffer.allocate(true, 4 * items, 8 * items * versions, 4);
    this.heads = held[0];
    this.slots = held[1];
    this.gts = held[2];
  }

  CudaEngine engine() {
    return engine;
  }

  @Override
  public CsmvMemory csmvMemory() {
    return CsmvMemory.of(items, 4, versions, heads.bytes() + slots.bytes());
  }

  @Override
  protected void putWords(int region, int[] bits) {
    engine.bind();
    long base = layout().wordBase(region);
    long[] words = new long[bits.length * versions];
    for (int i = 0; i < bits.length; i++) {
      words[i * versions] = bits[i] & 0xffffffffL;
    }
    heads.uploadAtByte(4 * base, Pointer.to(new int[bits.length]), 4L * bits.length);
    slots.uploadAtByte(8 * base * versions, Pointer.to(words), 8L * words.length);
  }

  @Override
  protected int[] getWords(int region) {
    engine.bind();
    long base = layout().wordBase(region);
    int n = layout().region(region).length();
    int[] h = new int[n];
    long[] words = new long[n * versions];
    heads.downloadAtByte(4 * base, Pointer.to(h), 4L * n);
    slots.downloadAtByte(8 * base * versions, Pointer.to(words), 8L * words.length);
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = (int) words[i * versions + Integer.remainderUnsigned(h[i], versions)];
    }
    return out;
  }

  @Override
  public int[] lockVersions() {
    checkOpen();
    engine.bind();
    int[] out = new int[(int) items];
    heads.download(Pointer.to(out), 4L * out.length);
    return out;
  }

  @Override
  public void close() {
    super.close();
    engine.bind();
    DeviceBuffer.closeAll(List.of(heads, slots, gts));
  }
}
