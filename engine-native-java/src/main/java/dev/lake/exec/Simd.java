package dev.lake.exec;

/**
 * Whether the SIMD kernels may run. They are written against the incubating Vector API
 * ({@code jdk.incubator.vector}), which a JVM resolves only when started with
 * {@code --add-modules=jdk.incubator.vector}; every caller keeps a scalar path for the JVMs that
 * were not, so a missing flag costs speed, never correctness. {@code -Dlake.simd=false} turns the
 * SIMD kernels off for differential testing.
 */
public final class Simd {
  /** True when the Vector API is resolved in this JVM and not turned off. */
  public static final boolean ENABLED =
      ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()
          && !"false".equalsIgnoreCase(System.getProperty("lake.simd"));

  private Simd() {}
}
