package io.gstm.core.batch;

/**
 * The setters every workload configuration's builder shares: the {@link Grid} its batch runs on
 * and the seed it is drawn from. Each configuration's builder extends this with its own values
 * and defaults; its {@code build()} checks the grid against its own limits.
 *
 * @param <B> the configuration's builder, returned by every setter
 */
public abstract class GridBuilder<B extends GridBuilder<B>> {
  private int threadsPerBlock;
  private int blocks;
  private int txPerThread;
  private long seed = 1;

  /** A builder whose grid starts at these defaults (seed 1). */
  protected GridBuilder(int threadsPerBlock, int blocks, int txPerThread) {
    this.threadsPerBlock = threadsPerBlock;
    this.blocks = blocks;
    this.txPerThread = txPerThread;
  }

  /** {@code blocks} blocks of {@code threadsPerBlock} threads. */
  public B grid(int threadsPerBlock, int blocks) {
    this.threadsPerBlock = threadsPerBlock;
    this.blocks = blocks;
    return self();
  }

  /** Transactions per thread, at least 1. */
  public B txPerThread(int value) {
    txPerThread = value;
    return self();
  }

  /** Random seed of the batch. */
  public B seed(long value) {
    seed = value;
    return self();
  }

  /** The grid set so far, for {@code build()}. */
  protected Grid grid() {
    return new Grid(threadsPerBlock, blocks, txPerThread);
  }

  /** The seed set so far, for {@code build()}. */
  protected long seed() {
    return seed;
  }

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }
}
