package io.gstm.core.workload;

/**
 * What every hand-written workload holds the same way: the name its batches carry and the
 * ordering tag of each of its type codes. Subclasses are stateless singletons.
 */
public abstract class NamedWorkload implements Workload {
  private final String name;
  private final int[] tags;

  /** {@code tags[type]}: the ordering tag of each type code, see {@link #orderingTags()}. */
  protected NamedWorkload(String name, int... tags) {
    this.name = name;
    this.tags = tags.clone();
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final int[] orderingTags() {
    return tags.clone();
  }
}
