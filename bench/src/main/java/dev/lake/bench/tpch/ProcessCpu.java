package dev.lake.bench.tpch;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The process's CPU time (user + system, every thread, finished ones included) from
 * {@code getrusage(RUSAGE_SELF)}, which reports microseconds; the JDK's
 * {@code getProcessCpuTime} counts scheduler ticks (10 ms here), too coarse for queries of a few
 * tens of milliseconds. Falls back to the JDK's figure where {@code getrusage} is missing.
 */
public final class ProcessCpu {
  private static final com.sun.management.OperatingSystemMXBean JDK =
      (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
  private static final int RUSAGE_SELF = 0;
  /** struct rusage opens with ru_utime and ru_stime, each a struct timeval {long sec; long usec}. */
  private static final long TIMES_BYTES = 32;
  private static final MethodHandle GETRUSAGE = find();

  private ProcessCpu() {}

  private static MethodHandle find() {
    try {
      Linker linker = Linker.nativeLinker();
      return linker.defaultLookup().find("getrusage").map(address -> linker.downcallHandle(address,
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS))).orElse(null);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** CPU nanoseconds used by this process so far (microsecond resolution with getrusage). */
  public static long nanos() {
    if (GETRUSAGE == null) {
      return JDK.getProcessCpuTime();
    }
    try (Arena arena = Arena.ofConfined()) {
      // The whole struct (144 bytes on Linux x86-64/aarch64) is written; only the times are read.
      MemorySegment usage = arena.allocate(256, 8);
      int rc = (int) GETRUSAGE.invokeExact(RUSAGE_SELF, usage);
      if (rc != 0) {
        return JDK.getProcessCpuTime();
      }
      long micros = 0;
      for (long at = 0; at < TIMES_BYTES; at += 16) {
        micros += usage.get(ValueLayout.JAVA_LONG, at) * 1_000_000 + usage.get(ValueLayout.JAVA_LONG, at + 8);
      }
      return micros * 1000;
    } catch (Throwable e) {
      throw new IllegalStateException("getrusage failed", e);
    }
  }
}
