package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The staging ring's pieces: a round's count, and sizes that every element size divides. */
class PinnedStagingPiecesTest {
  @ParameterizedTest(name = "{0} bytes: {1} pieces")
  @CsvSource({"1, 1", "1048576, 1", "1048577, 2", "33554432, 32", "33554424, 32"})
  void aRoundIsCutIntoWholePieces(long bytes, int expected) {
    assertThat(PinnedStaging.pieces(bytes)).isEqualTo(expected);
  }

  @Test
  void piecesTileTheRingAndHoldWholeElements() {
    assertThat(PinnedStaging.CHUNK_BYTES % PinnedStaging.PIECE_BYTES).isZero();
    assertThat(PinnedStaging.PIECES).isEqualTo(PinnedStaging.CHUNK_BYTES / PinnedStaging.PIECE_BYTES);
    assertThat(PinnedStaging.PIECE_BYTES % 8).isZero();
  }
}
