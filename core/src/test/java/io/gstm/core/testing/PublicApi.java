package io.gstm.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The public API of a module, read by reflection from its compiled classes, for tests that hold
 * the API to a shape (issue 18: no public member takes more than 7 positional parameters). Any
 * module can use it on its own classes: give a class of that module's main output and the package
 * to scan.
 */
public final class PublicApi {
  /** The most positional parameters a public member may take (issue 18). */
  public static final int MAX_PARAMETERS = 7;

  private PublicApi() {}

  /**
   * No public member of {@code module} (its classes under {@code packageRoot}, in the class
   * folder of {@code anchor}) takes more than {@link #MAX_PARAMETERS} parameters.
   */
  public static void assertNoMemberTakesTooMany(String module, Class<?> anchor,
      String packageRoot) {
    assertThat(membersWithMoreThan(MAX_PARAMETERS, anchor, packageRoot))
        .as("public members of %s with more than %d parameters: use a builder or group the "
            + "parameters in a record", module, MAX_PARAMETERS)
        .isEmpty();
  }

  /**
   * Every public, non-synthetic constructor and method declared by a public class (every class
   * enclosing it public too) under {@code packageRoot}, in the class folder that holds
   * {@code anchor} (a module's own main output while its tests run), each as
   * {@code "N owner.name(types)"} with N its parameter count, sorted.
   */
  public static List<String> membersWithMoreThan(int maxParameters, Class<?> anchor,
      String packageRoot) {
    List<String> out = new ArrayList<>();
    for (Class<?> c : classes(anchor, packageRoot)) {
      if (!isPublicApi(c)) {
        continue;
      }
      List<Executable> members = new ArrayList<>(List.of(c.getDeclaredConstructors()));
      members.addAll(List.of(c.getDeclaredMethods()));
      for (Executable e : members) {
        boolean bridge = e instanceof Method m && m.isBridge();
        if (Modifier.isPublic(e.getModifiers()) && !e.isSynthetic() && !bridge
            && e.getParameterCount() > maxParameters) {
          out.add(e.getParameterCount() + " " + name(e));
        }
      }
    }
    out.sort(null);
    return out;
  }

  /** {@code owner.name(types)}; a constructor is named {@code <init>}. */
  public static String name(Executable e) {
    String member = e instanceof Constructor<?> ? "<init>" : e.getName();
    String types = Stream.of(e.getParameterTypes()).map(Class::getSimpleName)
        .collect(Collectors.joining(", "));
    return e.getDeclaringClass().getName() + "." + member + "(" + types + ")";
  }

  private static boolean isPublicApi(Class<?> c) {
    for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
      if (!Modifier.isPublic(k.getModifiers()) || k.isSynthetic() || k.isAnonymousClass()
          || k.isLocalClass()) {
        return false;
      }
    }
    return true;
  }

  /** The classes under {@code packageRoot} in {@code anchor}'s class-path folder, not loaded. */
  private static List<Class<?>> classes(Class<?> anchor, String packageRoot) {
    Path root;
    try {
      root = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    if (!Files.isDirectory(root)) {
      throw new IllegalStateException("expected a class folder, got " + root);
    }
    Path dir = root.resolve(packageRoot.replace('.', '/'));
    List<Class<?>> out = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String rel = root.relativize(f).toString();
        if (!rel.endsWith(".class") || rel.endsWith("module-info.class")
            || rel.endsWith("package-info.class")) {
          continue;
        }
        String binary = rel.substring(0, rel.length() - ".class".length())
            .replace(f.getFileSystem().getSeparator(), ".");
        out.add(Class.forName(binary, false, anchor.getClassLoader()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
    if (out.isEmpty()) {
      throw new IllegalStateException("no classes under " + packageRoot + " in " + root);
    }
    return out;
  }
}
