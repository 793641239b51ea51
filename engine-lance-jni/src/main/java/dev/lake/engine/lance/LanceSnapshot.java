package dev.lake.engine.lance;

import dev.lake.engine.CorruptTableException;
import dev.lake.engine.EngineException;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * One Lance version, as plain values: its schema and the row counts of its fragments. It holds
 * no native resource; each read opens the dataset at this version (cheap through the shared
 * session) and the returned reader owns and closes it.
 */
final class LanceSnapshot implements Snapshot {

  /** A fragment of this version and its live rows, from the manifest. */
  record FragmentRows(int id, long rows) {}

  private static final long BATCH_ROWS = 8192;

  private final LanceStore store;
  private final TableLocation location;
  private final String uri;
  private final Version version;
  private final long lanceVersion;
  private final Schema schema;
  private final List<FragmentRows> fragments;
  private final long rowCount;

  LanceSnapshot(LanceStore store, TableLocation location, String uri, Version version, long lanceVersion,
      Schema schema, List<FragmentRows> fragments) {
    this.store = store;
    this.location = location;
    this.uri = uri;
    this.version = version;
    this.lanceVersion = lanceVersion;
    this.schema = schema;
    this.fragments = List.copyOf(fragments);
    this.rowCount = fragments.stream().mapToLong(FragmentRows::rows).sum();
  }

  @Override
  public Version version() {
    return version;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  /** The sum of the live rows of the fragments, from the manifest; reads no data. */
  @Override
  public long rowCount() {
    return rowCount;
  }

  /**
   * One unit per fragment. Lance keeps no per-fragment statistics in its manifest, so nothing is
   * pruned here; the filter is pushed into each fragment's scan instead.
   */
  @Override
  public ScanPlan plan(ScanRequest request) {
    requireColumns(request.columns());
    List<ScanUnit> units = new ArrayList<>(fragments.size());
    for (FragmentRows f : fragments) {
      if (f.rows() > 0) {
        units.add(new LanceScanUnit(lanceVersion, f.id(), f.rows()));
      }
    }
    return new ScanPlan(units, fragments.size(), 0);
  }

  /**
   * Scans one fragment with Lance's scanner: the projection and the translatable part of the
   * filter run inside Lance, and batches arrive through the C stream interface without copies.
   *
   * @throws IllegalArgumentException if the unit is not a fragment of this snapshot or a column is
   *     unknown
   * @throws VersionNotFoundException if maintenance expired this version since the snapshot was
   *     taken ({@link VersionNotFoundException#expired()})
   * @throws CorruptTableException if the fragment's files are missing
   * @throws EngineException if Lance fails to start the scan
   */
  @Override
  public ArrowReader open(ScanUnit unit, ScanRequest request, BufferAllocator allocator) {
    if (!(unit instanceof LanceScanUnit lu) || lu.lanceVersion() != lanceVersion) {
      throw new IllegalArgumentException("scan unit " + unit.describe() + " does not belong to version " + version);
    }
    requireColumns(request.columns());
    if (request.columns().isEmpty()) {
      return new CountingReader(allocator, unit.rowCount(), request.limit());
    }
    ScanOptions.Builder options = new ScanOptions.Builder()
        .fragmentIds(List.of(lu.fragmentId()))
        .columns(request.columns())
        .batchSize(BATCH_ROWS);
    Optional<LanceFilter.Pushdown> pushed = request.filter().flatMap(f -> LanceFilter.translate(schema, f));
    pushed.ifPresent(p -> options.filter(p.sql()));
    boolean limitIsSafe = request.filter().isEmpty() || pushed.map(LanceFilter.Pushdown::exact).orElse(false);
    if (limitIsSafe) {
      request.limit().ifPresent(options::limit);
    }
    Dataset dataset = openDataset(allocator);
    LanceScanner scanner = null;
    try {
      scanner = LanceScanner.create(dataset, options.build(), allocator);
      ArrowReader reader = scanner.scanBatches();
      return ForwardingReader.owning(allocator, reader, scanner, dataset);
    } catch (RuntimeException e) {
      closeQuietly(scanner, e);
      closeQuietly(dataset, e);
      if (LanceErrors.isNotFound(e)) {
        throw new CorruptTableException(location, "a file of " + unit.describe() + " is missing: "
            + LanceErrors.message(e), e);
      }
      throw LanceErrors.failure(location, "scanning " + unit.describe(), e);
    }
  }

  /**
   * Reads the rows at {@code positions} with Lance's take (random access by row offset). Lance
   * ships the taken rows as one Arrow IPC buffer per call.
   */
  @Override
  public ArrowReader take(long[] positions, List<String> columns, BufferAllocator allocator) {
    requireColumns(columns);
    if (columns.isEmpty()) {
      throw new IllegalArgumentException("take needs at least one column");
    }
    List<Long> indices = new ArrayList<>(positions.length);
    for (long p : positions) {
      if (p < 0 || p >= rowCount) {
        throw new IndexOutOfBoundsException(
            "row position " + p + " is outside version " + version + ", which has " + rowCount + " rows");
      }
      indices.add(p);
    }
    Dataset dataset = openDataset(allocator);
    try {
      ArrowReader reader = dataset.take(indices, columns);
      return ForwardingReader.owning(allocator, reader, dataset);
    } catch (IOException | RuntimeException e) {
      closeQuietly(dataset, e);
      throw LanceErrors.failure(location, "taking " + positions.length + " rows at version " + version, e);
    }
  }

  private Dataset openDataset(BufferAllocator allocator) {
    try {
      return store.open(allocator, uri, OptionalLong.of(lanceVersion));
    } catch (RuntimeException e) {
      if (LanceErrors.isNotFound(e)) {
        throw LanceTableHandle.missingVersion(store, location, uri, version, e);
      }
      throw LanceErrors.failure(location, "opening version " + version, e);
    }
  }

  private void requireColumns(List<String> columns) {
    Set<String> known = new HashSet<>();
    for (Field f : schema.getFields()) {
      known.add(f.getName());
    }
    for (String c : columns) {
      if (!known.contains(c)) {
        throw new IllegalArgumentException("no column '" + c + "' in version " + version + " of " + location);
      }
    }
  }

  private static void closeQuietly(AutoCloseable c, Throwable primary) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      primary.addSuppressed(e);
    }
  }
}
