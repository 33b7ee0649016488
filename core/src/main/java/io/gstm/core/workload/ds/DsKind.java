package io.gstm.core.workload.ds;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The four data structures of Cederman, Tsigas and Chaudhry's benchmarks (a queue, a hash map of
 * 128 sorted lists, an unbalanced binary search tree, a skip list), each written as transaction
 * programs over a pre-sized node pool ({@link DsPrograms}).
 */
public enum DsKind {
  QUEUE("queue", "enqueue", "dequeue"),
  HASHMAP("hashmap", "insert", "delete", "lookup"),
  TREE("tree", "insert", "lookup"),
  SKIPLIST("skiplist", "insert", "delete", "search");

  private final String label;
  private final String[] operations;

  DsKind(String label, String... operations) {
    this.label = label;
    this.operations = operations;
  }

  /** The name the CLI and the tests use. */
  public String label() {
    return label;
  }

  /** The programs of this structure, in type-code order. */
  public String[] operations() {
    return operations.clone();
  }

  /** Whether nodes are one slot per key (tree, skip list) rather than drawn from a pool. */
  public boolean keyedNodes() {
    return this == TREE || this == SKIPLIST;
  }

  /** Parses a label; an unknown one is an error naming {@code parameter} and the choices. */
  public static DsKind parse(String parameter, String value) {
    for (DsKind k : values()) {
      if (k.label.equalsIgnoreCase(value == null ? "" : value.trim())) {
        return k;
      }
    }
    throw new IllegalArgumentException(parameter + ": unknown structure '" + value
        + "', expected one of " + labels());
  }

  /** "queue, hashmap, tree, skiplist". */
  public static String labels() {
    return Arrays.stream(values()).map(DsKind::label).collect(Collectors.joining(", "));
  }
}
