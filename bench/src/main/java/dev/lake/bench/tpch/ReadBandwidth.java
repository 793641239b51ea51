package dev.lake.bench.tpch;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.stream.Stream;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * How fast one thread of this machine reads memory: the floor of a scan that must read every byte
 * of its columns once. Measured with a vector loop, the fastest way this JVM streams memory (a
 * plain loop over a {@code long[]} stays near 29 GB/s where this one reads 36-40), in bytes per
 * second, best of several passes each larger than any cache. The loop's form matters: the
 * same memory read one vector per iteration against a bound re-read each time measured 33 GB/s.
 */
final class ReadBandwidth {
  private static final VectorSpecies<Long> LONGS = LongVector.SPECIES_PREFERRED;
  private static final long SLICE = 512 * 1024;
  private static final int PASSES = 7;
  private static long sink;

  private ReadBandwidth() {}

  /** Over a 512 MiB off-heap buffer. */
  static double offHeap() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment buffer = arena.allocate(512L << 20, 64);
      buffer.fill((byte) 1);
      return best(List.of(unscoped(buffer)));
    }
  }

  /**
   * Over the regular files under {@code dir} (a table's segments), mapped read-only as the engine
   * maps them; empty when they hold less than 256 MiB, which caches would flatter.
   */
  static OptionalDouble mappedFiles(Path dir) throws IOException {
    List<Path> files;
    try (Stream<Path> walk = Files.walk(dir)) {
      files = walk.filter(Files::isRegularFile).toList();
    }
    try (Arena arena = Arena.ofConfined()) {
      List<MemorySegment> mapped = new ArrayList<>();
      long total = 0;
      for (Path file : files) {
        try (FileChannel channel = FileChannel.open(file)) {
          if (channel.size() >= SLICE) {
            mapped.add(unscoped(channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena)));
            total += channel.size();
          }
        }
      }
      return total < 256L << 20 ? OptionalDouble.empty() : OptionalDouble.of(best(mapped));
    }
  }

  /**
   * An off-heap buffer held open for single passes timed between other work ({@link #pass}). Not
   * the table's files: the last megabytes a pass reads stay in the L3 cache, and a query reading
   * the same bytes next would find them there.
   */
  static final class Passes implements AutoCloseable {
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment buffer;

    Passes(long bytes) {
      MemorySegment owned = arena.allocate((bytes + SLICE - 1) / SLICE * SLICE, 64);
      owned.fill((byte) 1);
      buffer = unscoped(owned);
    }

    /** Bytes per second of one pass over all of this memory. */
    double pass() {
      long t0 = System.nanoTime();
      for (long at = 0; at < buffer.byteSize(); at += SLICE) {
        sink += sum(buffer.asSlice(at, SLICE));
      }
      return buffer.byteSize() / ((System.nanoTime() - t0) / 1e9);
    }

    @Override
    public void close() {
      arena.close();
    }
  }

  /** A plain loop over a 512 MiB {@code long[]}: what earlier reports took for the machine's rate. */
  static double plainLoop() {
    long[] data = new long[64 * 1024 * 1024];
    java.util.Arrays.fill(data, 1);
    double best = Double.MAX_VALUE;
    for (int pass = 0; pass < PASSES; pass++) {
      long t0 = System.nanoTime();
      long sum = 0;
      for (long v : data) {
        sum += v;
      }
      sink += sum;
      best = Math.min(best, (System.nanoTime() - t0) / 1e9);
    }
    return data.length * 8.0 / best;
  }

  /**
   * The same memory without its arena's liveness checks, as the engine reads column buffers
   * (through their addresses); only used while the arena is open.
   */
  private static MemorySegment unscoped(MemorySegment segment) {
    return MemorySegment.ofAddress(segment.address()).reinterpret(segment.byteSize());
  }

  private static double best(List<MemorySegment> regions) {
    double best = 0;
    for (int pass = 0; pass < PASSES; pass++) {
      long bytes = 0;
      long t0 = System.nanoTime();
      for (MemorySegment region : regions) {
        for (long at = 0; at + SLICE <= region.byteSize(); at += SLICE) {
          sink += sum(region.asSlice(at, SLICE));
          bytes += SLICE;
        }
      }
      best = Math.max(best, bytes / ((System.nanoTime() - t0) / 1e9));
    }
    return best;
  }

  // One slice per call, so the loop is compiled once and then entered compiled.
  private static long sum(MemorySegment slice) {
    // Two sums, so no load waits on the previous add; the bound is read once, so the loop is
    // counted and unrolled (SLICE is a multiple of two vectors). Each form measured faster.
    LongVector acc = LongVector.zero(LONGS);
    LongVector acc2 = LongVector.zero(LONGS);
    long end = slice.byteSize();
    long step = LONGS.vectorByteSize();
    for (long at = 0; at < end; at += 2 * step) {
      acc = acc.add(LongVector.fromMemorySegment(LONGS, slice, at, ByteOrder.LITTLE_ENDIAN));
      acc2 = acc2.add(LongVector.fromMemorySegment(LONGS, slice, at + step, ByteOrder.LITTLE_ENDIAN));
    }
    return acc.add(acc2).reduceLanes(VectorOperators.ADD);
  }

  /** Keeps the sums observable, so no loop is optimised away. */
  static long checksum() {
    return sink;
  }
}
