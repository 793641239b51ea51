package dev.lake.engine.lance;

import dev.lake.engine.CommitConflictException;
import dev.lake.engine.CorruptTableException;
import dev.lake.engine.EngineException;
import dev.lake.engine.MaintenancePolicy;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableExistsException;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.cleanup.CleanupPolicy;
import org.lance.fragment.DataFile;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.operation.Rewrite;
import org.lance.operation.RewriteGroup;

/**
 * The {@code lance} table engine: each table is a Lance dataset at its location, on local disk
 * or S3. Thread-safe. Handles and snapshots hold no native resource between calls; every Lance
 * object a call opens is closed by that call, or by the reader it returns.
 */
final class LanceEngine implements TableEngine {

  private static final String VERSIONS_DIR = "_versions";

  private final LanceStore store;
  private volatile boolean closed;

  LanceEngine(LanceStore store) {
    this.store = store;
  }

  @Override
  public String name() {
    return LanceEngineFactory.NAME;
  }

  /**
   * Writes an empty Lance dataset (Lance version 1, lake version 0) whose schema is {@code schema}.
   *
   * @throws IllegalArgumentException if the schema is empty, has duplicate names, or Lance cannot
   *     store one of its types
   * @throws TableExistsException if a Lance dataset is already there; nothing is changed
   * @throws EngineException if the storage fails; a retry is safe
   */
  @Override
  public TableHandle create(TableLocation location, Schema schema) {
    checkOpen();
    validateSchema(schema);
    String uri = LanceStore.uri(location);
    try (Dataset d = Dataset.create(store.allocator(), uri, schema, store.writeParams())) {
      return new LanceTableHandle(store, location, uri, d.getSchema());
    } catch (RuntimeException e) {
      if (LanceErrors.isAlreadyExists(e)) {
        throw new TableExistsException(location);
      }
      String m = LanceErrors.message(e);
      if (m.contains("Invalid user input") || m.contains("Unsupported") || m.contains("not supported")) {
        throw new IllegalArgumentException("Lance cannot create a table with this schema: " + m, e);
      }
      throw LanceErrors.failure(location, "creating the dataset", e);
    }
  }

  /**
   * Opens the dataset's latest version.
   *
   * @return empty when nothing is at the location (on S3: when Lance finds no manifest there)
   * @throws CorruptTableException if a local directory there holds files but no Lance manifest
   *     (not a Lance dataset), or its manifest cannot be read
   */
  @Override
  public Optional<TableHandle> open(TableLocation location) {
    checkOpen();
    String uri = LanceStore.uri(location);
    if (location.isLocal() && isAbsentOrEmpty(location)) {
      return Optional.empty();
    }
    try (Dataset d = store.open(store.allocator(), uri, OptionalLong.empty())) {
      return Optional.of(new LanceTableHandle(store, location, uri, d.getSchema()));
    } catch (RuntimeException e) {
      if (!LanceErrors.isNotFound(e)) {
        throw new CorruptTableException(location, "not a readable Lance dataset: " + LanceErrors.message(e), e);
      }
      if (location.isLocal()) {
        throw new CorruptTableException(location, "not a Lance dataset: the directory holds files but no "
            + VERSIONS_DIR + "/ manifest", e);
      }
      return Optional.empty();
    }
  }

  /**
   * Compaction rewrites the small fragments into fragments of about the target size, as one or
   * more new Lance versions holding the same rows; expiry computes the oldest version to keep
   * from the policy and has Lance delete every older manifest and every file only they reference.
   */
  @Override
  public Optional<Version> maintain(TableLocation location, MaintenancePolicy policy) {
    checkOpen();
    String uri = LanceStore.uri(location);
    Optional<Version> compacted = Optional.empty();
    try (Dataset d = openForMaintenance(location, uri)) {
      if (policy.compacts()) {
        compacted = compact(location, uri, d, policy);
      }
    }
    if (policy.expires()) {
      try (Dataset d = openForMaintenance(location, uri)) {
        expire(location, d, policy);
      }
    }
    return compacted;
  }

  /**
   * Rewrites the small fragments into fragments of about the target size and commits them as one
   * Lance {@code Rewrite} transaction, so compaction adds exactly one version. (Lance's own
   * {@code compact} first commits a {@code ReserveFragments} version, which would show as an extra
   * lake version without any change.) The data crosses JNI as a C stream from Lance's scanner
   * straight back into Lance's writer.
   */
  private Optional<Version> compact(TableLocation location, String uri, Dataset d, MaintenancePolicy policy) {
    List<FragmentMetadata> small = new ArrayList<>();
    long bytes = 0;
    long rows = 0;
    for (Fragment f : d.getFragments()) {
      FragmentMetadata m = f.metadata();
      long size = 0;
      for (DataFile file : m.getFiles()) {
        size += file.getFileSizeBytes() == null ? 0 : file.getFileSizeBytes();
      }
      if (size < policy.compactionTargetBytes()) {
        small.add(m);
        bytes += size;
        rows += m.getNumRows();
      }
    }
    if (small.size() < policy.minSmallSegments() || rows == 0) {
      return Optional.empty();
    }
    long bytesPerRow = Math.max(1, bytes / rows);
    int targetRows = (int) Math.min(Integer.MAX_VALUE, Math.max(1, policy.compactionTargetBytes() / bytesPerRow));
    List<FragmentMetadata> rewritten;
    try (BufferAllocator scanning = store.allocator().newChildAllocator("lance-compact", 0, Long.MAX_VALUE)) {
      ScanOptions options = new ScanOptions.Builder()
          .fragmentIds(small.stream().map(FragmentMetadata::getId).toList())
          .batchSize(8192)
          .build();
      try (LanceScanner scanner = LanceScanner.create(d, options, scanning);
          ArrowArrayStream stream = ArrowArrayStream.allocateNew(scanning)) {
        Data.exportArrayStream(scanning, scanner.scanBatches(), stream); // the stream owns the reader
        rewritten = Fragment.create(uri, stream, store.writeParams(targetRows));
      }
    } catch (Exception e) {
      throw LanceErrors.failure(location, "rewriting " + small.size() + " small fragments (nothing was committed)", e);
    }
    Transaction transaction = new Transaction.Builder()
        .readVersion(d.version())
        .operation(Rewrite.builder()
            .groups(List.of(RewriteGroup.builder().oldFragments(small).newFragments(rewritten).build()))
            .rewrittenIndices(List.of())
            .build())
        .build();
    try (transaction;
        Dataset committed = new CommitBuilder(uri, store.allocator())
            .writeParams(store.storageOptions())
            .maxRetries(store.settings().commitRetries())
            .execute(transaction)) {
      return Optional.of(LanceTableHandle.lakeVersion(committed.version()));
    } catch (RuntimeException e) {
      if (LanceErrors.isCommitConflict(e)) {
        throw new CommitConflictException(location,
            "compaction kept losing its version to other writers: " + LanceErrors.message(e));
      }
      throw LanceErrors.failure(location, "committing the compaction (outcome unknown)", e);
    }
  }

  private void expire(TableLocation location, Dataset d, MaintenancePolicy policy) {
    List<org.lance.Version> versions = d.listVersions();
    if (versions.size() <= 1) {
      return;
    }
    long byCount = versions.get(Math.max(0, versions.size() - policy.retainVersions())).getId();
    Instant youngest = Instant.now().minus(policy.retainAge());
    long byAge = versions.getLast().getId();
    for (org.lance.Version v : versions) {
      if (!v.getDataTime().toInstant().isBefore(youngest)) {
        byAge = v.getId();
        break;
      }
    }
    long keepFrom = Math.min(byCount, byAge);
    if (keepFrom <= versions.getFirst().getId()) {
      return;
    }
    try {
      d.cleanupWithPolicy(CleanupPolicy.builder().withBeforeVersion(keepFrom).build());
    } catch (RuntimeException e) {
      throw LanceErrors.failure(location, "expiring versions before " + LanceTableHandle.lakeVersion(keepFrom), e);
    }
  }

  private Dataset openForMaintenance(TableLocation location, String uri) {
    try {
      return store.open(store.allocator(), uri, OptionalLong.empty());
    } catch (RuntimeException e) {
      if (LanceErrors.isNotFound(e)) {
        throw new VersionNotFoundException(location, Version.INITIAL, "cannot be maintained: no Lance dataset is here");
      }
      throw LanceErrors.failure(location, "opening the dataset for maintenance", e);
    }
  }

  /** Has Lance delete the dataset's directory or prefix. Idempotent. */
  @Override
  public void drop(TableLocation location) {
    checkOpen();
    String uri = LanceStore.uri(location);
    if (location.isLocal() && !Files.exists(location.localPath())) {
      return;
    }
    try {
      Dataset.drop(uri, store.storageOptions());
    } catch (Exception e) { // Lance raises an undeclared IOException when the path is gone
      if (LanceErrors.isNotFound(e)) {
        return;
      }
      throw LanceErrors.failure(location, "dropping the dataset", e);
    }
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      store.close();
    }
  }

  /** Fails if the engine is closed; loads the native library on the first operation. */
  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the lance engine is closed");
    }
    store.ready();
  }

  private static boolean isAbsentOrEmpty(TableLocation location) {
    Path dir = location.localPath();
    if (!Files.isDirectory(dir)) {
      return !Files.exists(dir);
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    } catch (IOException e) {
      throw new EngineException(location, "cannot list the table directory: " + e.getMessage(), e);
    }
  }

  static void validateSchema(Schema schema) {
    if (schema.getFields().isEmpty()) {
      throw new IllegalArgumentException("a table needs at least one column");
    }
    Set<String> names = new HashSet<>();
    for (Field f : schema.getFields()) {
      if (!names.add(f.getName())) {
        throw new IllegalArgumentException("duplicate column name '" + f.getName() + "'");
      }
    }
  }
}
