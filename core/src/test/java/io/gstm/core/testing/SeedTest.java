package io.gstm.core.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.provider.ArgumentsSource;
import org.junit.jupiter.params.support.AnnotationConsumer;
import org.junit.jupiter.params.support.ParameterDeclarations;

/**
 * A test run once per seed {@code 1 .. seeds}, each invocation named by its seed: {@code
 * @SeedTest(seeds = 150) void x(long seed)}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "seed {0}")
@ArgumentsSource(SeedTest.Seeds.class)
public @interface SeedTest {
  /** The last seed; the first is 1. */
  int seeds();

  /** The seeds of one {@link SeedTest}. */
  final class Seeds implements ArgumentsProvider, AnnotationConsumer<SeedTest> {
    private int last;

    @Override
    public void accept(SeedTest test) {
      last = test.seeds();
    }

    @Override
    public Stream<? extends Arguments> provideArguments(ParameterDeclarations parameters,
        ExtensionContext context) {
      return LongStream.rangeClosed(1, last).mapToObj(Arguments::of);
    }
  }
}
