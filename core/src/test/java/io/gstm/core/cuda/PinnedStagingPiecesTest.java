package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The staging ring's piece size for a copy: about eight pieces, a power of two in bounds. */
class PinnedStagingPiecesTest {
  @ParameterizedTest(name = "{0} bytes: pieces of {1}")
  @CsvSource({"1, 4194304", "1048576, 4194304", "33554432, 4194304", "33554433, 4194304", "33554448, 8388608",
      "67108864, 8388608", "67108865, 8388608", "134217728, 16777216", "6400000000, 16777216"})
  void aboutEightPiecesWithinBounds(long bytes, int expected) {
    int piece = PinnedStaging.pieceBytes(bytes);
    assertThat(piece).isEqualTo(expected);
    assertThat(PinnedStaging.CHUNK_BYTES % piece).isZero();
  }
}
