package io.gstm.core.program;

/** A block of statements for {@link ProgramBuilder}: the body of an if, an else or a loop. */
public final class Block extends Statements<Block> {
  Block(int[] counter) {
    super(counter);
  }

  @Override
  Block self() {
    return this;
  }
}
