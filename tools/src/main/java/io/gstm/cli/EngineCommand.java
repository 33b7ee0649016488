package io.gstm.cli;

import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.engine.Engine;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/**
 * A command that runs on one engine ({@code --engine}): its options are checked, and what needs
 * no engine readied, before the engine opens, so that bad input costs no GPU start and a sweep
 * never fails half way; the engine is closed however the run ends.
 */
abstract class EngineCommand implements Callable<Integer> {
  @Mixin EngineOption engine = new EngineOption();

  /** The part of a command that runs on the open engine; its status: 0 ok, 1 a check failed. */
  interface Run {
    int on(Engine e) throws IOException;
  }

  /**
   * Checks the options (bad input throws {@link IllegalArgumentException} naming the option)
   * and readies what needs no engine; the run.
   */
  abstract Run prepare() throws IOException;

  @Override
  public final Integer call() throws IOException {
    Run run = prepare();
    try (Engine e = engine.open().engine()) {
      if (e instanceof CudaEngine cuda
          && System.getProperty("gstm.jit.background") == null) {
        // A command measures or checks what it runs: a program set is compiled before its
        // first batch, not beside it (gstm.jit.background=true restores the library default).
        cuda.setCompileInBackground(false);
      }
      return run.on(e);
    }
  }
}
