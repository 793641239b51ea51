package dev.lake.engine.lance;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.AppendSchemas;
import dev.lake.engine.CommitConflictException;
import dev.lake.engine.CorruptTableException;
import dev.lake.engine.EngineException;
import dev.lake.engine.SchemaMismatchException;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionInfo;
import dev.lake.engine.VersionNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.operation.Append;

/**
 * A Lance dataset as a lake table.
 *
 * <p>Versions: Lance numbers its versions from 1 (the empty dataset {@code create} writes); lake
 * numbers them from {@link Version#INITIAL} = 0. Lake version {@code n} is Lance version {@code
 * n + 1}, everywhere and for good, so a stock Lance reader sees the same history shifted by one.
 *
 * <p>Operation identity: each append is one Lance {@code Append} transaction whose transaction
 * properties carry the operation id, digest, tenant and table ({@code lake.*} keys, stored in the
 * version's {@code _transactions/*.txn} file). {@link #reconcileAppend} and the replay check read
 * them back, version by version, once per handle.
 */
final class LanceTableHandle implements TableHandle {

  static final String OPERATION_ID = "lake.operation-id";
  static final String SHA256 = "lake.sha256";
  static final String TENANT = "lake.tenant";
  static final String TABLE = "lake.table";

  private record Committed(Version version, AppendOperation operation) {}

  private final LanceStore store;
  private final TableLocation location;
  private final String uri;
  private volatile Schema schema;
  private volatile boolean closed;

  /** Operations found in transaction properties, by id; filled by {@link #scanOperations}. */
  private final Map<UUID, Committed> operations = new ConcurrentHashMap<>();
  private final Map<Long, AppendOperation> operationByLanceVersion = new ConcurrentHashMap<>();
  private long scannedThrough; // Lance version; guarded by this

  LanceTableHandle(LanceStore store, TableLocation location, String uri, Schema schema) {
    this.store = store;
    this.location = location;
    this.uri = uri;
    this.schema = schema;
  }

  static Version lakeVersion(long lanceVersion) {
    return Version.of(lanceVersion - 1);
  }

  static long lanceVersion(Version version) {
    return Math.addExact(version.number(), 1);
  }

  @Override
  public TableLocation location() {
    return location;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  /** Resolves the latest manifest in storage. */
  @Override
  public Version currentVersion() {
    checkOpen();
    try (Dataset d = openLatest()) {
      schema = d.getSchema();
      return lakeVersion(d.version());
    }
  }

  /** Every version whose manifest is still in storage, oldest first, with the operation that made it. */
  @Override
  public List<VersionInfo> versions() {
    checkOpen();
    List<org.lance.Version> listed;
    try (Dataset d = openLatest()) {
      listed = d.listVersions();
    } catch (RuntimeException e) {
      throw LanceErrors.failure(location, "listing versions", e);
    }
    scanOperations();
    List<VersionInfo> out = new ArrayList<>(listed.size());
    for (org.lance.Version v : listed) {
      out.add(new VersionInfo(lakeVersion(v.getId()), v.getDataTime().toInstant(),
          Optional.ofNullable(operationByLanceVersion.get(v.getId()))));
    }
    return out;
  }

  /**
   * @throws VersionNotFoundException if the version was never committed, or was removed by
   *     maintenance ({@link VersionNotFoundException#expired()})
   */
  @Override
  public Snapshot snapshot(Version version) {
    checkOpen();
    long lanceVersion = lanceVersion(version);
    try (Dataset d = store.open(store.allocator(), uri, OptionalLong.of(lanceVersion))) {
      List<LanceSnapshot.FragmentRows> fragments = new ArrayList<>();
      for (Fragment f : d.getFragments()) {
        FragmentMetadata m = f.metadata();
        fragments.add(new LanceSnapshot.FragmentRows(m.getId(), m.getNumRows()));
      }
      return new LanceSnapshot(store, location, uri, version, lanceVersion, d.getSchema(), fragments);
    } catch (RuntimeException e) {
      if (!LanceErrors.isNotFound(e)) {
        throw LanceErrors.failure(location, "opening version " + version, e);
      }
      throw missingVersion(version, e);
    }
  }

  private VersionNotFoundException missingVersion(Version version, RuntimeException cause) {
    return missingVersion(store, location, uri, version, cause);
  }

  /**
   * Why {@code version} cannot be opened: beyond the latest version (never committed), or older
   * than the oldest manifest left (expired by maintenance).
   */
  static VersionNotFoundException missingVersion(
      LanceStore store, TableLocation location, String uri, Version version, RuntimeException cause) {
    List<org.lance.Version> listed;
    try (Dataset d = store.open(store.allocator(), uri, OptionalLong.empty())) {
      listed = d.listVersions();
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
      throw LanceErrors.failure(location, "opening version " + version, cause);
    }
    Version latest = lakeVersion(listed.getLast().getId());
    if (version.compareTo(latest) > 0) {
      return VersionNotFoundException.neverCommitted(location, version, latest);
    }
    VersionNotFoundException e = VersionNotFoundException.expired(location, version, lakeVersion(listed.getFirst().getId()));
    e.addSuppressed(cause);
    return e;
  }

  /**
   * Writes the batches as new Lance fragments (data files streamed through the C stream
   * interface), then commits one {@code Append} transaction carrying the operation's identity.
   * Lance's commit publishes the next manifest put-if-absent (local: atomic link; S3:
   * {@code If-None-Match: *}); on losing the race it rebases the append on the winner and tries the
   * following version, up to {@code lance.commit.retries} times.
   *
   * <p>An operation id already committed with the same identity returns its version without
   * writing anything (an idempotent replay).
   *
   * @throws IllegalArgumentException if the batches hold no rows; nothing is written
   * @throws SchemaMismatchException if the batches' fields differ from the table's; nothing is written
   * @throws CommitConflictException if the operation id was committed with another digest or
   *     target, or other writers kept winning; no version was created by this call
   * @throws EngineException if writing or committing fails; the outcome is then unknown, use
   *     {@link #reconcileAppend}. Data files of an uncommitted append are unreferenced and
   *     removed by maintenance.
   */
  @Override
  public Version append(AppendOperation operation, ArrowReader batches) {
    checkOpen();
    Optional<Version> replay = committed(operation);
    if (replay.isPresent()) {
      return replay.get();
    }
    long readVersion;
    Schema tableSchema;
    try (Dataset d = openLatest()) {
      readVersion = d.version();
      tableSchema = d.getSchema();
    }
    VectorSchemaRoot input;
    try {
      input = batches.getVectorSchemaRoot();
    } catch (IOException e) {
      throw new EngineException(location, "cannot read the appended batches: " + e.getMessage(), e);
    }
    AppendSchemas.requireAppendable(location, tableSchema, input.getSchema());
    List<FragmentMetadata> fragments = writeFragments(batches, input.getFieldVectors().getFirst().getAllocator());
    if (fragments.isEmpty()) {
      throw new IllegalArgumentException("append has no rows; an append must add at least one row");
    }
    Map<String, String> properties = new HashMap<>();
    properties.put(OPERATION_ID, operation.operationId().toString());
    properties.put(SHA256, operation.sha256());
    properties.put(TENANT, operation.tenant());
    properties.put(TABLE, operation.table());
    Transaction transaction = new Transaction.Builder()
        .readVersion(readVersion)
        .operation(Append.builder().fragments(fragments).build())
        .transactionProperties(properties)
        .build();
    try (transaction;
        Dataset committed = new CommitBuilder(uri, store.allocator())
            .writeParams(store.storageOptions())
            .maxRetries(store.settings().commitRetries())
            .execute(transaction)) {
      Version version = lakeVersion(committed.version());
      remember(committed.version(), operation);
      return version;
    } catch (RuntimeException e) {
      if (LanceErrors.isCommitConflict(e)) {
        Optional<Version> won = committed(operation);
        if (won.isPresent()) {
          return won.get();
        }
        throw new CommitConflictException(location, "other writers kept winning the next version ("
            + LanceErrors.message(e) + "); nothing was committed, retrying the operation is safe");
      }
      throw LanceErrors.failure(location, "committing append " + operation.operationId()
          + " (outcome unknown: reconcile before retrying)", e);
    }
  }

  /**
   * @throws CommitConflictException if the operation id was committed with a different digest or target
   */
  @Override
  public Optional<Version> reconcileAppend(AppendOperation operation) {
    checkOpen();
    return committed(operation);
  }

  private Optional<Version> committed(AppendOperation operation) {
    Committed c = operations.get(operation.operationId());
    if (c == null) {
      scanOperations();
      c = operations.get(operation.operationId());
    }
    if (c == null) {
      return Optional.empty();
    }
    if (!c.operation().equals(operation)) {
      throw new CommitConflictException(location, "operation " + operation.operationId()
          + " was committed as version " + c.version() + " with a different payload digest or target");
    }
    return Optional.of(c.version());
  }

  /** Reads the transaction properties of every version not seen yet. */
  private synchronized void scanOperations() {
    List<org.lance.Version> listed;
    try (Dataset d = openLatest()) {
      listed = d.listVersions();
    } catch (RuntimeException e) {
      throw LanceErrors.failure(location, "listing versions", e);
    }
    for (org.lance.Version v : listed) {
      long id = v.getId();
      if (id <= scannedThrough) {
        continue;
      }
      try (Dataset d = store.open(store.allocator(), uri, OptionalLong.of(id))) {
        Optional<Transaction> tx = d.readTransaction();
        if (tx.isPresent()) {
          try (Transaction t = tx.get()) {
            t.transactionProperties().flatMap(LanceTableHandle::operationOf).ifPresent(op -> remember(id, op));
          }
        }
      } catch (RuntimeException e) {
        if (LanceErrors.isNotFound(e)) {
          continue; // removed by a concurrent cleanup; its operation can no longer be found here
        }
        throw LanceErrors.failure(location, "reading the transaction of version " + lakeVersion(id), e);
      }
      scannedThrough = id;
    }
  }

  private void remember(long lanceVersion, AppendOperation op) {
    operations.putIfAbsent(op.operationId(), new Committed(lakeVersion(lanceVersion), op));
    operationByLanceVersion.put(lanceVersion, op);
  }

  private static Optional<AppendOperation> operationOf(Map<String, String> properties) {
    String id = properties.get(OPERATION_ID);
    if (id == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(new AppendOperation(properties.get(TENANT), properties.get(TABLE),
          UUID.fromString(id), properties.get(SHA256)));
    } catch (RuntimeException e) {
      return Optional.empty(); // not written by lake: a foreign writer's properties
    }
  }

  /**
   * Exports the caller's batches as a C stream (the C Data Interface hands Lance the buffers
   * themselves, so the export must use an allocator under the batches' own root; misaligned
   * buffers are copied, see {@link AligningReader}) and lets Lance write them as data files.
   */
  private List<FragmentMetadata> writeFragments(ArrowReader batches, BufferAllocator batchAllocator) {
    try (BufferAllocator exporting = batchAllocator.newChildAllocator("lance-append", 0, Long.MAX_VALUE)) {
      AligningReader aligned = new AligningReader(exporting, batches);
      try (ArrowArrayStream stream = ArrowArrayStream.allocateNew(exporting)) {
        Data.exportArrayStream(exporting, aligned, stream);
        return Fragment.create(uri, stream, store.writeParams());
      }
    } catch (RuntimeException e) {
      throw LanceErrors.failure(location, "writing data files (nothing was committed)", e);
    }
  }

  private Dataset openLatest() {
    try {
      return store.open(store.allocator(), uri, OptionalLong.empty());
    } catch (RuntimeException e) {
      if (LanceErrors.isNotFound(e)) {
        throw new CorruptTableException(location, "the Lance dataset is gone: " + LanceErrors.message(e), e);
      }
      throw LanceErrors.failure(location, "opening the dataset", e);
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the table handle for " + location + " is closed");
    }
  }

  /** Holds no native resource between calls; only marks the handle unusable. */
  @Override
  public void close() {
    closed = true;
  }
}
