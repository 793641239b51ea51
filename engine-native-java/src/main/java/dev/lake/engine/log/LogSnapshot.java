package dev.lake.engine.log;

import dev.lake.engine.ColumnStatistics;
import dev.lake.engine.CorruptTableException;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.engine.Version;
import dev.lake.engine.expr.Expression;
import dev.lake.engine.log.commit.LiveSegment;
import dev.lake.engine.log.segment.BlockMeta;
import dev.lake.engine.log.segment.ColumnStats;
import dev.lake.engine.log.segment.SegmentFile;
import dev.lake.engine.log.segment.SegmentFooter;
import dev.lake.engine.log.segment.StatsPruner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/** A pinned version: its live segments, read through footers cached by the handle. */
final class LogSnapshot implements Snapshot {

  /**
   * Rows after which a segment's surviving blocks start a new scan unit. Units are the morsels a
   * parallel query hands to its workers: about two default blocks each, so a table of a few
   * large segments still gives every worker work, and a unit is still large enough that its
   * per-unit overhead (a reader, a partial aggregate) stays small.
   */
  static final long UNIT_ROWS = 1 << 17;

  private final LogTableHandle handle;
  private final Version version;
  private final Schema schema;
  private final List<LiveSegment> segments;
  private final long rowCount;
  private final Map<String, Integer> columnIndex = new HashMap<>();
  private final Map<Integer, ColumnStatistics> statisticsCache = new java.util.concurrent.ConcurrentHashMap<>();

  LogSnapshot(LogTableHandle handle, Version version, Schema schema, List<LiveSegment> segments) {
    this.handle = handle;
    this.version = version;
    this.schema = schema;
    this.segments = List.copyOf(segments);
    this.rowCount = segments.stream().mapToLong(s -> s.ref().rows()).sum();
    for (int i = 0; i < schema.getFields().size(); i++) {
      columnIndex.put(schema.getFields().get(i).getName(), i);
    }
  }

  @Override
  public Version version() {
    return version;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  /** The segments live in this version, oldest first. */
  List<LiveSegment> segments() {
    return segments;
  }

  @Override
  public long rowCount() {
    return rowCount;
  }

  /**
   * Reads (or reuses) each live segment's footer and keeps the blocks the filter may match, in
   * units of consecutive surviving blocks of one segment, each cut after {@link #UNIT_ROWS} rows.
   * The plan is kept by the handle ({@link ScanPlans}) and returned again for an equal request at
   * this version; a segment removed since is then reported when its unit is opened.
   *
   * @throws IllegalArgumentException if a requested column does not exist
   * @throws CorruptTableException if a segment is missing, has the wrong size or a bad footer
   * @throws dev.lake.engine.VersionNotFoundException if retention expired this version since it
   *     was pinned
   */
  @Override
  public ScanPlan plan(ScanRequest request) {
    ScanPlan kept = handle.plans().get(version.number(), request);
    if (kept != null) {
      return kept;
    }
    ScanPlan plan = planBlocks(request);
    handle.plans().put(version.number(), request, plan);
    return plan;
  }

  private ScanPlan planBlocks(ScanRequest request) {
    projection(request);
    Optional<Expression> filter = request.filter();
    StatsPruner pruner = new StatsPruner(schema);
    List<ScanUnit> units = new ArrayList<>();
    long total = 0;
    long pruned = 0;
    for (LiveSegment segment : segments) {
      SegmentFooter footer = handle.footer(segment, version, schema);
      List<Integer> kept = new ArrayList<>();
      long rows = 0;
      int survivors = 0;
      for (int b = 0; b < footer.blocks().size(); b++) {
        BlockMeta block = footer.blocks().get(b);
        if (filter.isEmpty() || pruner.mayMatch(filter.get(), block)) {
          kept.add(b);
          rows += block.rows();
          survivors++;
          if (rows >= UNIT_ROWS) {
            units.add(new LogScanUnit(handle.location(), segment, footer, kept, rows));
            kept = new ArrayList<>();
            rows = 0;
          }
        }
      }
      total += footer.blocks().size();
      pruned += footer.blocks().size() - survivors;
      if (!kept.isEmpty()) {
        units.add(new LogScanUnit(handle.location(), segment, footer, kept, rows));
      }
    }
    return new ScanPlan(units, total, pruned);
  }

  /**
   * Opens a reader over a unit from {@link #plan}: one batch per surviving block. The filter
   * prunes whole blocks only (rows are not filtered) and the limit hint is not used. Checksums
   * are verified as each block loads; a failure there throws {@link CorruptTableException} from
   * {@code loadNextBatch}.
   *
   * @throws IllegalArgumentException if the unit is not from a plan of this table
   */
  @Override
  public ArrowReader open(ScanUnit unit, ScanRequest request, BufferAllocator allocator) {
    if (!(unit instanceof LogScanUnit u) || !u.location().equals(handle.location())) {
      throw new IllegalArgumentException("not a scan unit of this log table: " + unit.describe());
    }
    List<Integer> projection = projection(request);
    LiveSegment segment = u.segment();
    return SegmentFile.openBlocks(
        handle.store(), LogTableHandle.segmentKey(segment.ref().file()), u.footer(), u.blocks(),
        projection, allocator, handle.mappings(),
        (block, column, problem, cause) ->
            handle.corruptOrExpired(version, segment, block, column, problem, cause));
  }

  /**
   * Null count and bounds merged over every block's footer statistics (footers are cached by the
   * handle); bounds only when every block has them and they are numbers.
   */
  @Override
  public Optional<ColumnStatistics> statistics(String column) {
    Integer index = columnIndex.get(column);
    if (index == null) {
      throw new IllegalArgumentException("no column '" + column + "' in " + handle.location());
    }
    return Optional.of(statisticsCache.computeIfAbsent(index, this::mergeStatistics));
  }

  private ColumnStatistics mergeStatistics(int column) {
    long nulls = 0;
    Object min = null;
    Object max = null;
    boolean bounded = true;
    for (LiveSegment segment : segments) {
      for (BlockMeta block : handle.footer(segment, version, schema).blocks()) {
        ColumnStats stats = block.columns().get(column).stats();
        nulls += stats.nullCount();
        if (stats.nullCount() == block.rows()) {
          continue; // all NULL: no values to bound
        }
        if (!(stats.min() instanceof Number lo) || !(stats.max() instanceof Number hi)
            || !(lo instanceof Long || lo instanceof Double)) {
          bounded = false;
          continue;
        }
        min = min == null || compare(lo, (Number) min) < 0 ? lo : min;
        max = max == null || compare(hi, (Number) max) > 0 ? hi : max;
      }
    }
    return bounded && min != null ? new ColumnStatistics(nulls, min, max) : new ColumnStatistics(nulls, null, null);
  }

  private static int compare(Number a, Number b) {
    return a instanceof Long x && b instanceof Long y ? Long.compare(x, y)
        : Double.compare(a.doubleValue(), b.doubleValue());
  }

  private List<Integer> projection(ScanRequest request) {
    List<Integer> projection = new ArrayList<>(request.columns().size());
    for (String name : request.columns()) {
      Integer i = columnIndex.get(name);
      if (i == null) {
        throw new IllegalArgumentException("no column '" + name + "' in " + handle.location());
      }
      projection.add(i);
    }
    return projection;
  }
}
