package io.gstm.core.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class or method only where a usable GPU is present (probed once per JVM), and tags
 * it "gpu". With {@code -Dgstm.requireGpu=true} (the GPU bundle sets it) a missing GPU fails the
 * test instead of skipping it, so a silent fallback cannot pass.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("gpu")
@ExtendWith(GpuCondition.class)
public @interface EnabledIfGpu {}
