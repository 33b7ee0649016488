package io.gstm.core.kmeans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KMeansDataChunkTest {
  private static final long N = KMeansData.CHUNK_POINTS + 10L;

  @Test
  void aChunkDependsOnlyOnItsSeedAndIndex() {
    double[] a = KMeansData.blobsChunk(N, 3, 4, 9, 1);
    assertThat(a).hasSize(10 * 3).isEqualTo(KMeansData.blobsChunk(N, 3, 4, 9, 1));
    assertThat(KMeansData.blobsChunk(N, 3, 4, 10, 1)).isNotEqualTo(a);
    assertThat(KMeansData.blobsChunk(N, 3, 4, 9, 0)).hasSize(KMeansData.CHUNK_POINTS * 3);
    assertThat(KMeansData.chunks(N)).isEqualTo(2);
    assertThat(KMeansData.chunks(0)).isZero();
  }

  @Test
  void pointsLieAroundBlobsCentres() {
    // blobs' centres are drawn first from the seed; its first points lie near them, and so do
    // a chunk's: every coordinate within 7 standard deviations of [-10, 10).
    for (double x : KMeansData.blobsChunk(N, 2, 3, 5, 0)) {
      assertThat(x).isBetween(-17.0, 17.0);
    }
  }

  @Test
  void badArgumentsNameTheParameter() {
    assertThatThrownBy(() -> KMeansData.blobsChunk(N, 2, 3, 5, 2))
        .hasMessageContaining("index must be in 0..1");
    assertThatThrownBy(() -> KMeansData.blobsChunk(-1, 2, 3, 5, 0)).hasMessageContaining("n ");
    assertThatThrownBy(() -> KMeansData.blobsChunk(N, 0, 3, 5, 0)).hasMessageContaining("dims");
    assertThatThrownBy(() -> KMeansData.blobsChunk(N, 2, 0, 5, 0)).hasMessageContaining("k ");
  }
}
