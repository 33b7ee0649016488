package io.gstm.spark.exec;

import java.util.function.Supplier;
import org.apache.spark.SparkContext;

/**
 * Names the Spark jobs and RDDs of one gstm operation (its call site, shown in Spark's UI and
 * logs) after the user's line that started it ("TxState 'bank' apply at App.java:42"), once:
 * without a call site set, Spark names each job after the first frame outside Spark (gstm's
 * own internals) and walks the driver thread's whole stack for every RDD it creates and every
 * job it runs, a dozen walks an apply (14% of the driver thread's samples in a profile of small
 * epochs on 2 cores; within the noise end to end, docs/benchmark-log.md).
 */
public final class JobCallSite {
  /** Spark's local properties of the call site (SparkContext.setCallSite). */
  static final String SHORT = "callSite.short";
  static final String LONG = "callSite.long";

  /** Where gstm's library classes come from: the connector's jar and core's. */
  private static final java.util.Set<java.net.URL> LIBRARY = new java.util.HashSet<>();

  static {
    for (Class<?> c : new Class<?>[] {JobCallSite.class, io.gstm.core.engine.Engine.class}) {
      java.security.CodeSource source = c.getProtectionDomain().getCodeSource();
      if (source != null) {
        LIBRARY.add(source.getLocation());
      }
    }
  }

  private JobCallSite() {}

  /**
   * Runs {@code body} with the call site "{@code what} at File.java:line" ({@link #caller}); a
   * call site set already (by the caller, or an enclosing operation) is kept.
   */
  public static <X> X around(SparkContext sc, String what, Class<?> skip, Supplier<X> body) {
    if (sc.getLocalProperty(SHORT) != null) {
      return body.get();
    }
    String site = what + " at " + caller(skip);
    sc.setLocalProperty(SHORT, site);
    sc.setLocalProperty(LONG, site);
    try {
      return body.get();
    } finally {
      sc.setLocalProperty(SHORT, null);
      sc.setLocalProperty(LONG, null);
    }
  }

  /**
   * "File.java:line" of the first frame outside gstm's library jars, Spark, Scala and the JDK
   * (a user's application, gstm's own commands, a test), or of the first frame past {@code
   * skip} when there is none.
   */
  static String caller(Class<?> skip) {
    StackWalker.StackFrame[] found = new StackWalker.StackFrame[2];
    StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).forEach(f -> {
      String c = f.getClassName();
      boolean platform = c.startsWith("org.apache.spark.") || c.startsWith("scala.")
          || c.startsWith("java.") || c.startsWith("jdk.") || c.startsWith("sun.");
      if (found[0] == null && !platform && !library(f.getDeclaringClass())) {
        found[0] = f;
      }
      if (found[1] == null && !platform && f.getDeclaringClass() != skip
          && f.getDeclaringClass() != JobCallSite.class) {
        found[1] = f;
      }
    });
    StackWalker.StackFrame f = found[0] != null ? found[0] : found[1];
    return f == null ? "?" : f.getFileName() + ":" + f.getLineNumber();
  }

  private static boolean library(Class<?> c) {
    java.security.CodeSource source = c.getProtectionDomain().getCodeSource();
    return source != null && LIBRARY.contains(source.getLocation());
  }
}
