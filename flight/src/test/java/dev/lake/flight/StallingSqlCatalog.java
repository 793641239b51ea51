package dev.lake.flight;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.ColumnStatistics;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionInfo;
import dev.lake.exec.QueryControl;
import dev.lake.sql.PlanningControl;
import dev.lake.sql.SqlCatalog;
import dev.lake.sql.TableName;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A test hook standing for slow storage or a slow remote registry: while armed, opening one table
 * (planning) or opening a unit of its scan (execution) waits until the call is stopped, checking
 * the stop signal the way real work must ({@link PlanningControl#check()} while planning, the
 * query's {@link QueryControl} while scanning). So a test puts a call in exactly the phase it
 * means, whatever the machine's load, and proves that phase honours cancel and deadline.
 */
final class StallingSqlCatalog implements SqlCatalog {

  enum Phase { NONE, PLANNING, SCANNING }

  private final SqlCatalog inner;
  private final TableName stalled;
  private volatile Phase phase = Phase.NONE;
  private volatile CountDownLatch entered = new CountDownLatch(1);
  /** Stalls in progress now. */
  final AtomicInteger stalling = new AtomicInteger();

  StallingSqlCatalog(SqlCatalog inner, TableName stalled) {
    this.inner = inner;
    this.stalled = stalled;
  }

  /** From now on, calls touching the stalled table wait in {@code phase} until stopped. */
  void arm(Phase phase) {
    this.entered = new CountDownLatch(1);
    this.phase = phase;
  }

  /** Waits until a call is stalled in the armed phase. */
  boolean awaitStalled(long seconds) throws InterruptedException {
    return entered.await(seconds, TimeUnit.SECONDS);
  }

  @Override
  public List<String> schemaNames() {
    return inner.schemaNames();
  }

  @Override
  public List<String> tableNames(String schema) {
    return inner.tableNames(schema);
  }

  @Override
  public OptionalLong directoryGeneration() {
    return inner.directoryGeneration();
  }

  @Override
  public Optional<TableHandle> openTable(TableName name) {
    if (name.equals(stalled) && phase == Phase.PLANNING) {
      stall(PlanningControl::check);
    }
    return inner.openTable(name).map(h -> name.equals(stalled) ? new Handle(h) : h);
  }

  private void stall(Runnable check) {
    stalling.incrementAndGet();
    entered.countDown();
    try {
      while (true) {
        check.run();
        Thread.onSpinWait();
        try {
          Thread.sleep(2);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    } finally {
      stalling.decrementAndGet();
    }
  }

  private final class Handle implements TableHandle {
    private final TableHandle inner;

    Handle(TableHandle inner) {
      this.inner = inner;
    }

    @Override
    public TableLocation location() {
      return inner.location();
    }

    @Override
    public Schema schema() {
      return inner.schema();
    }

    @Override
    public Version currentVersion() {
      return inner.currentVersion();
    }

    @Override
    public List<VersionInfo> versions() {
      return inner.versions();
    }

    @Override
    public Snapshot snapshot(Version version) {
      return new Stalling(inner.snapshot(version));
    }

    @Override
    public Version append(AppendOperation operation, ArrowReader batches) {
      return inner.append(operation, batches);
    }

    @Override
    public Optional<Version> reconcileAppend(AppendOperation operation) {
      return inner.reconcileAppend(operation);
    }

    @Override
    public void close() {
      inner.close();
    }
  }

  private final class Stalling implements Snapshot {
    private final Snapshot inner;

    Stalling(Snapshot inner) {
      this.inner = inner;
    }

    @Override
    public Version version() {
      return inner.version();
    }

    @Override
    public Schema schema() {
      return inner.schema();
    }

    @Override
    public long rowCount() {
      return inner.rowCount();
    }

    @Override
    public ScanPlan plan(ScanRequest request) {
      return inner.plan(request);
    }

    @Override
    public ArrowReader open(ScanUnit unit, ScanRequest request, BufferAllocator allocator) {
      if (phase == Phase.SCANNING) {
        QueryControl control = QueryControl.of(allocator);
        stall(control::check);
      }
      return inner.open(unit, request, allocator);
    }

    @Override
    public ArrowReader take(long[] positions, List<String> columns, BufferAllocator allocator) {
      return inner.take(positions, columns, allocator);
    }

    @Override
    public Optional<ColumnStatistics> statistics(String column) {
      return inner.statistics(column);
    }
  }
}
