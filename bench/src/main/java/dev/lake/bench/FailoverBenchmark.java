package dev.lake.bench;

import dev.lake.metastore.lease.LeaseElection;
import dev.lake.metastore.lease.LeaseSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * Failover time of the lease election: three contenders with a 1 s TTL, 200 ms renew interval and
 * 100 ms drift margin; each measured shot kills the leader (stops it without resigning) and ends
 * when another contender holds a newer epoch. The design bound is TTL + one renew interval
 * (1,200 ms) after the last renewal. JMH prints the distribution (percentiles) of the shots.
 * Run: {@code bench/run FailoverBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 20)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class FailoverBenchmark {

  static final LeaseSettings TIMING = new LeaseSettings(Duration.ofMillis(1000),
      Duration.ofMillis(200), Duration.ofMillis(100));

  @Param({"rocksdb", "dynalite"})
  public String backend;

  private MetaStoreBackends backends;
  private final List<LeaseElection> contenders = new ArrayList<>();
  private LeaseElection leader;
  private int round;

  @Setup(Level.Trial)
  public void setUp() {
    backends = new MetaStoreBackends(backend);
  }

  @Setup(Level.Iteration)
  public void elect() throws InterruptedException {
    round++;
    for (int i = 0; i < 3; i++) {
      LeaseElection c = new LeaseElection(backends.store, "lease/bench-" + round,
          "c" + i + "-" + round, TIMING, Clock.systemUTC());
      contenders.add(c);
      c.start();
    }
    leader = awaitLeader(0);
  }

  @Benchmark
  public long failover() throws InterruptedException {
    long epoch = leader.currentLease().orElseThrow().epoch();
    leader.stopWithoutResigning();
    return awaitLeader(epoch).currentLease().orElseThrow().epoch();
  }

  @TearDown(Level.Iteration)
  public void stopContenders() {
    contenders.forEach(LeaseElection::close);
    contenders.clear();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    backends.close();
  }

  private LeaseElection awaitLeader(long afterEpoch) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      for (LeaseElection c : contenders) {
        if (c.currentLease().filter(l -> l.epoch() > afterEpoch).isPresent()) {
          return c;
        }
      }
      Thread.sleep(1);
    }
    throw new IllegalStateException("no leader above epoch " + afterEpoch + " within 10 s");
  }
}
