package io.gstm.core.cuda;

import io.gstm.core.batch.RunOptions;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** Byte offsets of the by-value kernel structs, as static_asserts in the headers fix them. */
class KernelStructsTest {
  @Test
  void storeViewMatchesTheHeaderLayout() {
    StoreLayout layout = StoreLayout.of(new RegionSpec("a", RegionType.INT32, 100, 4),
        new RegionSpec("b", RegionType.FLOAT64, 10, 1));
    byte[] bytes = KernelStructs.storeView(layout, 0x1000, new long[] {0x2000, 0x3000});
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(bytes).hasSize(208);
    assertThat(b.getLong(0)).isEqualTo(0x1000);
    assertThat(b.getInt(8)).isEqualTo(25 + 10); // lock_count
    assertThat(b.getInt(12)).isEqualTo(2); // region_count
    assertThat(b.getLong(16)).isEqualTo(0x2000);
    assertThat(b.getInt(24)).isEqualTo(100);
    assertThat(b.getInt(28)).isEqualTo(4);
    assertThat(b.getInt(32)).isEqualTo(0);
    assertThat(b.getInt(36)).isEqualTo(4);
    assertThat(b.getLong(40)).isEqualTo(0x3000);
    assertThat(b.getInt(48)).isEqualTo(10);
    assertThat(b.getInt(52)).isEqualTo(8);
    assertThat(b.getInt(56)).isEqualTo(25); // lock_base of region 1
  }

  @Test
  void batchStructsHaveTheirHeaderSizes() {
    assertThat(KernelStructs.bankBatch(1, 2, 3, 4, 5, 6, 7)).hasSize(48);
    byte[] out = KernelStructs.batchOut(1, 2, 3, 4, 5,
        RunOptions.defaults().withMaxRetries(77).withUrgentAfter(5));
    assertThat(out).hasSize(48);
    assertThat(ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).getInt(40)).isEqualTo(77);
    assertThat(ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).getInt(44)).isEqualTo(5);
  }

  @Test
  void lockTableArgsHaveTheirHeaderLayout() {
    byte[] descriptors = new byte[LockTableKernel.DESCRIPTORS_BYTES];
    descriptors[0] = 42;
    byte[] args = LockTableKernel.args(io.gstm.core.store.Algorithm.blocking()
        .withBackoff(io.gstm.core.store.Backoff.linear(5, 50)), descriptors);
    ByteBuffer b = ByteBuffer.wrap(args).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(args).hasSize(104);
    assertThat(new int[] {b.getInt(0), b.getInt(4), b.getInt(8)}).containsExactly(1, 5, 50);
    assertThat(args[16]).isEqualTo((byte) 42);
    byte[] gpuStm = LockTableKernel.args(io.gstm.core.store.Algorithm.gpuStm(), descriptors);
    assertThat(ByteBuffer.wrap(gpuStm).order(ByteOrder.LITTLE_ENDIAN).getInt(0)).isZero();
    assertThat(LockTableKernel.symbol(io.gstm.core.store.Algorithm.obstructionFree(), 16))
        .isEqualTo("gstm_program_of_s16");
  }
}
