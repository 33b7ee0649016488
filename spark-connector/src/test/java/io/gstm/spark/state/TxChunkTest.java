package io.gstm.spark.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Joined chunks: every row's id, program and slots in order, with the key slots held apart in
 * the parts' own arrays or copied; a chunk holding slots apart writes them whole.
 */
class TxChunkTest {
  /** Parts of the given sizes (empty ones too), row r's slot s being 1000 r + s. */
  private static List<TxChunk> parts(int... sizes) {
    List<TxChunk> parts = new ArrayList<>();
    int r = 0;
    for (int size : sizes) {
      TxChunk c = new TxChunk(3, 4);
      for (int i = 0; i < size; i++, r++) {
        c.add(r, r % 2, (byte) 0, null, new long[] {1000L * r, 1000L * r + 1, 1000L * r + 2});
      }
      parts.add(c);
    }
    return parts;
  }

  private static void assertRows(TxChunk c, int n) {
    assertThat(c.n).isEqualTo(n);
    for (int r = 0; r < n; r++) {
      assertThat(c.txIds[r]).isEqualTo(r);
      assertThat(c.types[r]).isEqualTo(r % 2);
      for (int s = 0; s < 3; s++) {
        assertThat(c.slots().get(s, r)).as("row %d slot %d", r, s).isEqualTo(1000L * r + s);
      }
    }
    // A reader walking forward, then back and forth across the parts.
    TxChunk.Slots slots = c.slots();
    for (int r : new int[] {0, 1, 2, 3, 4, 9, n - 1, 0, n / 2, 2, n - 1}) {
      if (r < n) {
        assertThat(slots.get(2, r)).as("read row %d", r).isEqualTo(1000L * r + 2);
      }
    }
  }

  @ParameterizedTest(name = "keys apart: {0}")
  @ValueSource(booleans = {false, true})
  void aJoinHoldsEveryRowInOrder(boolean apart) throws Exception {
    boolean[] keys = apart ? new boolean[] {true, false, true} : null;
    TxChunk joined = TxChunk.concat(parts(3, 0, 5, 1, 0, 7), 3, keys);
    assertRows(joined, 16);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    joined.write(new DataOutputStream(bytes));
    TxChunk back = TxChunk.read(new DataInputStream(new ByteArrayInputStream(
        bytes.toByteArray())));
    assertRows(back, 16);
    assertRows(joined, 16);
  }

  @ParameterizedTest(name = "keys apart: {0}")
  @ValueSource(booleans = {false, true})
  void aJoinedChunkGrowsWithItsRows(boolean apart) {
    boolean[] keys = apart ? new boolean[] {true, true, true} : null;
    TxChunk joined = TxChunk.concat(parts(2, 2), 3, keys);
    joined.add(4, 0, (byte) 0, null, new long[] {4000L, 4001L, 4002L});
    assertRows(joined, 5);
  }
}
