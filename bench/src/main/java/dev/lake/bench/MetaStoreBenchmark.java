package dev.lake.bench;

import dev.lake.metastore.Fence;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.ScanPage;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Latency of the metastore's operations, one caller, on RocksDB (embedded) and on dynalite (a
 * DynamoDB server on loopback, through the AWS SDK): point get, fenced compare-and-set, and a
 * 1,000-key prefix scan (one page). Run: {@code bench/run MetaStoreBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class MetaStoreBenchmark {

  private static final int KEYS = 1000;

  @Param({"rocksdb", "dynalite"})
  public String backend;

  private MetaStoreBackends backends;
  private MetaStore store;
  private byte[] current;
  private long counter;

  @Setup(Level.Trial)
  public void setUp() {
    backends = new MetaStoreBackends(backend);
    store = backends.store;
    byte[] record = new byte[300];
    Arrays.fill(record, (byte) 'r');
    for (int i = 0; i < KEYS; i++) {
      store.compareAndSet(String.format("tbl/bench/table-%04d", i), Optional.empty(), record,
          Fence.of(1));
    }
    store.compareAndSet("tbl/other/table", Optional.empty(), record, Fence.of(1));
    current = bytes(0);
    store.compareAndSet("gen/directory", Optional.empty(), current, Fence.of(1));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    backends.close();
  }

  @Benchmark
  public byte[] get() {
    return store.get("tbl/bench/table-0500").orElseThrow();
  }

  @Benchmark
  public boolean cas() {
    byte[] next = bytes(++counter);
    if (!store.compareAndSet("gen/directory", Optional.of(current), next, Fence.of(1))) {
      throw new IllegalStateException("CAS lost with a single writer");
    }
    current = next;
    return true;
  }

  @Benchmark
  public int scan1000() {
    ScanPage page = store.scan("tbl/bench/", Optional.empty(), KEYS);
    if (page.entries().size() != KEYS || page.continuation().isPresent()) {
      throw new IllegalStateException("expected one full page of " + KEYS);
    }
    return page.entries().size();
  }

  private static byte[] bytes(long n) {
    return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
  }
}
