package dev.lake.bench;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.expr.Between;
import dev.lake.engine.expr.ColumnRef;
import dev.lake.engine.expr.Literal;
import dev.lake.engine.log.LogEngineFactory;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * The {@code log} format against plain Arrow IPC files on the same disk: appending the same
 * batches (log: one version with fsynced segments and commit entry, into a table created before
 * the timed call; IPC: one new file, fsynced, and again with its directory fsynced too so that its
 * name is as durable as a log version's), scanning every column back, and a 1% range scan on
 * the sorted {@code id} column. Creating and dropping the table, and deleting the IPC file, happen
 * outside the timed call ({@link Level#Invocation} fixtures: each call takes hundreds of
 * milliseconds, far above their overhead). The range scan's {@code blocksRead} and
 * {@code blocksTotal} counters are summed over all calls; their ratio is the share of blocks the
 * statistics could not prune. Throughput ratios are log / IPC: run with {@code -bm thrpt} or
 * compare the average times.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "--add-modules=jdk.incubator.vector", "-Xmx2g"})
public class LogFormatBenchmark {

  static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
      new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

  @Param({"2000000"})
  public long rows;

  @Param({"65536"})
  public int batchRows;

  /** The log format's block size: the unit of statistics, so of pruning. */
  @Param({"16384"})
  public int blockRows;

  private BufferAllocator allocator;
  private Path dir;
  private List<ArrowRecordBatch> batches;
  private TableEngine engine;
  private TableHandle scanTable;
  private Path scanFile;
  private int appendCounter;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    allocator = new RootAllocator();
    dir = Files.createTempDirectory(Path.of(System.getProperty("lake.bench.dir", System.getProperty("java.io.tmpdir"))), "log-bench");
    batches = new ArrayList<>();
    for (long first = 0; first < rows; first += batchRows) {
      int n = (int) Math.min(batchRows, rows - first);
      try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
        root.allocateNew();
        BigIntVector id = (BigIntVector) root.getVector(0);
        Float8Vector score = (Float8Vector) root.getVector(1);
        VarCharVector name = (VarCharVector) root.getVector(2);
        for (int i = 0; i < n; i++) {
          long v = first + i;
          id.setSafe(i, v);
          score.setSafe(i, v * 0.25);
          name.setSafe(i, ("name-" + (v % 1000)).getBytes(StandardCharsets.UTF_8));
        }
        root.setRowCount(n);
        batches.add(new VectorUnloader(root).getRecordBatch());
      }
    }
    engine = new LogEngineFactory().create(Map.of("log.block.rows", Integer.toString(blockRows)));
    TableLocation location = TableLocation.of(dir.resolve("scan-table"));
    scanTable = engine.create(location, SCHEMA);
    appendLog(scanTable, 0);
    scanFile = dir.resolve("scan.arrow");
    writeIpc(scanFile);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    scanTable.close();
    engine.close();
    batches.forEach(ArrowRecordBatch::close);
    allocator.close();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** An empty log table, created and dropped around each timed append. */
  @State(Scope.Thread)
  public static class EmptyTable {
    TableLocation location;
    TableHandle table;

    @Setup(Level.Invocation)
    public void create(LogFormatBenchmark bench) {
      location = TableLocation.of(bench.dir.resolve("append-" + bench.appendCounter++));
      table = bench.engine.create(location, SCHEMA);
    }

    @TearDown(Level.Invocation)
    public void drop(LogFormatBenchmark bench) {
      table.close();
      bench.engine.drop(location);
    }
  }

  /** A fresh IPC file name, deleted after each timed write. */
  @State(Scope.Thread)
  public static class NewFile {
    Path file;

    @Setup(Level.Invocation)
    public void name(LogFormatBenchmark bench) {
      file = bench.dir.resolve("append-" + bench.appendCounter++ + ".arrow");
    }

    @TearDown(Level.Invocation)
    public void delete() throws IOException {
      Files.deleteIfExists(file);
    }
  }

  @Benchmark
  public long appendLogFormat(EmptyTable target) {
    return appendLog(target.table, 0).number();
  }

  @Benchmark
  public long appendArrowIpc(NewFile target) throws IOException {
    return writeIpc(target.file);
  }

  /**
   * The durable equivalent of a log append for one IPC file: {@link #appendArrowIpc} fsyncs the
   * file's bytes but not its name; this also fsyncs the directory, as the log format does for
   * its segment before committing.
   */
  @Benchmark
  public long appendArrowIpcDurableName(NewFile target) throws IOException {
    long size = writeIpc(target.file);
    try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
      directory.force(true);
    }
    return size;
  }

  @Benchmark
  public long scanLogFormat() throws IOException {
    Snapshot snapshot = scanTable.latestSnapshot();
    ScanRequest request = ScanRequest.of(List.of("id", "score", "name"));
    return scanRows(snapshot, request);
  }

  @Benchmark
  public long scanArrowIpc() throws IOException {
    long n = 0;
    try (FileChannel ch = FileChannel.open(scanFile, StandardOpenOption.READ);
        ArrowFileReader reader = new ArrowFileReader(ch, allocator)) {
      while (reader.loadNextBatch()) {
        n += reader.getVectorSchemaRoot().getRowCount();
      }
    }
    return n;
  }

  /**
   * Counters of the selective scan, summed over every call (JMH sums event counters over
   * iterations, so a per-call fraction would be reported multiplied by the iteration count):
   * {@code blocksRead / blocksTotal} is the share of blocks the statistics could not prune.
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Pruning {
    public long blocksRead;
    public long blocksTotal;

    @Setup(Level.Iteration)
    public void reset() {
      blocksRead = 0;
      blocksTotal = 0;
    }
  }

  @Benchmark
  public long selectiveScanOnePercentOfSortedColumn(Pruning pruning) throws IOException {
    Snapshot snapshot = scanTable.latestSnapshot();
    long from = rows / 2;
    long to = from + rows / 100 - 1;
    ArrowType int64 = new ArrowType.Int(64, true);
    ScanRequest request = ScanRequest.of(List.of("id", "score"))
        .withFilter(new Between(new ColumnRef("id"), new Literal(int64, from), new Literal(int64, to)));
    Snapshot.ScanPlan plan = snapshot.plan(request);
    pruning.blocksRead += plan.blocksTotal() - plan.blocksPruned();
    pruning.blocksTotal += plan.blocksTotal();
    long n = 0;
    for (ScanUnit unit : plan.units()) {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        while (reader.loadNextBatch()) {
          n += reader.getVectorSchemaRoot().getRowCount();
        }
      }
    }
    return n;
  }

  private long scanRows(Snapshot snapshot, ScanRequest request) throws IOException {
    long n = 0;
    for (ScanUnit unit : snapshot.plan(request).units()) {
      try (ArrowReader reader = snapshot.open(unit, request, allocator)) {
        while (reader.loadNextBatch()) {
          n += reader.getVectorSchemaRoot().getRowCount();
        }
      }
    }
    return n;
  }

  private dev.lake.engine.Version appendLog(TableHandle table, int n) {
    try (ArrowReader reader = new RecordBatchReader(allocator, SCHEMA, duplicate())) {
      return table.append(new AppendOperation("bench", "t", UUID.randomUUID(), "0".repeat(64)), reader);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Batches the reader may own and close; each retains the prepared buffers it shares. */
  private List<ArrowRecordBatch> duplicate() {
    List<ArrowRecordBatch> out = new ArrayList<>(batches.size());
    for (ArrowRecordBatch b : batches) {
      out.add(new ArrowRecordBatch(b.getLength(), b.getNodes(), b.getBuffers()));
    }
    return out;
  }

  private long writeIpc(Path file) throws IOException {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        ArrowFileWriter writer = new ArrowFileWriter(root, null, ch)) {
      VectorLoader loader = new VectorLoader(root);
      writer.start();
      for (ArrowRecordBatch b : batches) {
        loader.load(b);
        writer.writeBatch();
      }
      writer.end();
      ch.force(true);
      return ch.size();
    }
  }
}
