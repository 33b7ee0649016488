package io.gstm.core.testing;

import io.gstm.core.store.Algorithm;
import io.gstm.core.workload.ds.DsKind;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** The data-structure cases the engines' tests share. */
public final class DsCases {
  private DsCases() {}

  /**
   * Every structure at "full" and "low" contention, seeds 1 to 3: {@code (kind, contention,
   * seed)}, or with algorithms {@code (label, kind, contention, seed)} for each in turn.
   */
  public static Stream<Arguments> structures(Algorithm... algorithms) {
    List<Arguments> out = new ArrayList<>();
    for (Algorithm a : algorithms.length == 0 ? new Algorithm[] {null} : algorithms) {
      for (DsKind kind : DsKind.values()) {
        for (String contention : new String[] {"full", "low"}) {
          for (long seed = 1; seed <= 3; seed++) {
            out.add(a == null ? Arguments.of(kind, contention, seed)
                : Arguments.of(a.label(), kind, contention, seed));
          }
        }
      }
    }
    return out.stream();
  }
}
