package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A task's gpu address becomes the ordinal CUDA uses in the executor's process. */
class GpuAddressTest {
  @Test
  void anAddressIsTheOrdinalWhenEveryGpuIsVisible() {
    assertThat(GpuAddress.ordinal("1", null)).isEqualTo(1);
    assertThat(GpuAddress.ordinal(" 3 ", "")).isEqualTo(3);
  }

  @Test
  void aVisibleListRenumbersFromZero() {
    assertThat(GpuAddress.ordinal("5", "5")).isZero();
    assertThat(GpuAddress.ordinal("6", "4, 6,7")).isEqualTo(1);
    // UUIDs as a container runtime lists them
    assertThat(GpuAddress.ordinal("GPU-b2c1", "GPU-a1f0,GPU-b2c1")).isEqualTo(1);
  }

  @Test
  void anAddressThatIsNoIndexAndNotVisibleIsNamed() {
    assertThatThrownBy(() -> GpuAddress.ordinal("GPU-zz", "GPU-a1f0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'GPU-zz'").hasMessageContaining("CUDA_VISIBLE_DEVICES=GPU-a1f0");
    assertThatThrownBy(() -> GpuAddress.ordinal("-1", null))
        .hasMessageContaining("(unset)");
  }
}
