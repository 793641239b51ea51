package dev.lake.sdk;

import dev.lake.engine.DataLocation;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.Collections;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A connection to a lake server over Arrow Flight SQL. Thread-safe; one client per process and
 * server is enough. Close it when done: that closes every {@link QueryResult} still open.
 *
 * <pre>{@code
 * try (LakeClient lake = LakeClient.connect("grpc://127.0.0.1:47470", Credentials.none())) {
 *   lake.execute("INSERT INTO demo.t (id, name) VALUES (?, ?)", 1L, "one");
 *   try (QueryResult result = lake.query("SELECT name FROM demo.t WHERE id = ?", 1L)) {
 *     for (Row row : result.rows()) {
 *       System.out.println(row.getString("name"));
 *     }
 *   }
 * }
 * }</pre>
 *
 * <p>Parameters bind to the {@code ?} placeholders in order through a prepared statement; the
 * supported Java types are {@link Long}, {@link Integer}, {@link Double}, {@link String},
 * {@link Boolean}, {@link java.time.LocalDate}, {@link java.time.Instant} and {@code null}; a
 * {@code FILE} column of an INSERT takes a {@link FileUpload} (uploaded to the caller's managed
 * stage first) or a {@link DataLocation} of the caller's stage.
 *
 * <p>Managed objects: the bytes go straight between this client and the stage the server names
 * (action {@code lake.stage}, asked once): a local directory for {@code lake dev}, S3 in
 * production with this client's own {@link StageCredentials}.
 */
public final class LakeClient implements AutoCloseable {

  /** The Flight action naming the caller's managed stage. */
  static final String STAGE_ACTION = "lake.stage";
  static final String PRESIGN_ACTION = "lake.presign";

  private final BufferAllocator allocator;
  private final FlightClient flight;
  private final FlightSqlClient client;
  private final CallOption[] options;
  private final StageCredentials stageCredentials;
  private final Path resumeDir;
  private final Set<Result> open = Collections.newSetFromMap(new ConcurrentHashMap<>());
  private volatile boolean closed;
  /** The caller's stage, opened on first use. */
  private ObjectStage stage;

  private final TableVersions tableVersions;
  private volatile Duration appendRetryWindow = DEFAULT_APPEND_RETRY_WINDOW;

  /** How long {@link #append} retries an ambiguous failure before it reports a pending append. */
  public static final Duration DEFAULT_APPEND_RETRY_WINDOW = Duration.ofSeconds(30);

  /** The most rows one {@link #append} takes. */
  public static final int MAX_APPEND_ROWS = 10_000;

  private LakeClient(BufferAllocator allocator, FlightClient flight, CallOption[] options,
      StageCredentials stageCredentials, Path resumeDir, TableVersions tableVersions) {
    this.tableVersions = tableVersions;
    this.allocator = allocator;
    this.flight = flight;
    this.client = new FlightSqlClient(flight);
    this.options = options;
    this.stageCredentials = stageCredentials;
    this.resumeDir = resumeDir;
  }

  /**
   * A client for {@code uri}: {@code grpc://host:port} or {@code grpc+tcp://host:port}
   * (plaintext) or {@code grpc+tls://host:port} (TLS, the server certificate checked against the
   * JVM's default trust store). Without a resume directory a pending append lives only in its
   * {@link LakeException.AppendPending}. No call is made yet: an unreachable server shows as
   * {@link LakeException.Unavailable} on the first query.
   *
   * @throws IllegalArgumentException if the URI is malformed, has another scheme, or lacks a
   *     host or port
   * @throws NullPointerException if an argument is null
   */
  public static LakeClient connect(String uri, Credentials credentials) {
    return connect(uri, credentials, StageCredentials.defaultChain(), null);
  }

  /**
   * As {@link #connect(String, Credentials)}, with the storage credentials used for an S3 stage
   * (unused for a local one) and a directory where unfinished work is remembered: S3 multipart
   * uploads, so that uploading the same unchanged file again resumes them, and appends (a
   * checkpoint written durably before the first attempt, under {@code appends/}), so that an
   * append interrupted by a crash can be resumed by another process ({@link #pendingAppends}).
   *
   * @param resumeDir created when first needed; null: an interrupted upload starts over, and a
   *     pending append is kept in memory only
   * @throws IllegalArgumentException if the URI is malformed, has another scheme, or lacks a
   *     host or port
   * @throws NullPointerException if {@code uri}, {@code credentials} or {@code stageCredentials}
   *     is null
   */
  public static LakeClient connect(String uri, Credentials credentials,
      StageCredentials stageCredentials, Path resumeDir) {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(credentials, "credentials");
    Objects.requireNonNull(stageCredentials, "stageCredentials");
    URI parsed;
    try {
      parsed = new URI(uri);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("malformed lake URI '" + uri + "': " + e.getMessage(), e);
    }
    String scheme = parsed.getScheme() == null ? "" : parsed.getScheme();
    if (parsed.getHost() == null || parsed.getPort() < 0) {
      throw new IllegalArgumentException("lake URI '" + uri + "' needs a host and a port");
    }
    Location location = switch (scheme) {
      case "grpc", "grpc+tcp" -> Location.forGrpcInsecure(parsed.getHost(), parsed.getPort());
      case "grpc+tls" -> Location.forGrpcTls(parsed.getHost(), parsed.getPort());
      default -> throw new IllegalArgumentException("unsupported scheme '" + scheme
          + "' in lake URI '" + uri + "': use grpc://, grpc+tcp:// or grpc+tls://");
    };
    BufferAllocator allocator = new RootAllocator();
    try {
      TableVersions versions = new TableVersions();
      FlightClient flight = FlightClient.builder(allocator, location).intercept(versions).build();
      return new LakeClient(allocator, flight, credentials.callOptions(), stageCredentials,
          resumeDir, versions);
    } catch (RuntimeException e) {
      allocator.close();
      throw e;
    }
  }

  /**
   * Runs a query, binding {@code params} to its {@code ?} placeholders. Queries read a snapshot
   * and change nothing, so retrying a failed one is always safe.
   *
   * @return the open result; close it
   * @throws LakeException.InvalidArgument bad SQL, a wrong parameter count or type
   * @throws LakeException.NotFound a table or namespace that does not exist
   * @throws LakeException.Unauthenticated, LakeException.PermissionDenied credentials or grants
   * @throws LakeException.Unavailable the server cannot be reached or is not ready
   * @throws LakeException another server error
   * @throws IllegalStateException if this client is closed
   */
  public QueryResult query(String sql, Object... params) {
    Objects.requireNonNull(sql, "sql");
    checkOpen();
    for (Object param : params) {
      if (param instanceof FileUpload upload) {
        throw new LakeException.InvalidArgument("a query cannot take a FileUpload (" + upload.path()
            + "): files are stored by execute, in an INSERT", null);
      }
    }
    FlightSqlClient.PreparedStatement prepared = null;
    try {
      FlightInfo info;
      if (params.length == 0) {
        info = client.execute(sql, options);
      } else {
        prepared = prepare(sql, params, false);
        info = prepared.execute(options);
      }
      Schema declared = info.getSchemaOptional().orElse(new Schema(java.util.List.of()));
      FlightSqlClient.PreparedStatement statement = prepared;
      Result[] result = new Result[1];
      result[0] = new Result(new EndpointsReader(allocator, client, info.getEndpoints(), declared,
          options), () -> {
            closeQuietly(statement);
            open.remove(result[0]);
          });
      open.add(result[0]);
      return result[0];
    } catch (FlightRuntimeException e) {
      closeQuietly(prepared);
      throw LakeException.from(e);
    } catch (RuntimeException e) {
      closeQuietly(prepared);
      throw e;
    }
  }

  /**
   * Runs a statement that changes data or tables (INSERT, CREATE TABLE, DROP TABLE ...), binding
   * {@code params} to its {@code ?} placeholders.
   *
   * <p>FILE values: the statement is prepared and every parameter checked against its parameter
   * schema (count, types, FileUploads and DataLocations only for FILE columns, each local file
   * readable, each DataLocation of the caller's tenant) before any byte is uploaded; then the
   * files are uploaded one after another to the caller's stage under their content-derived keys,
   * and the statement runs once with their locations bound: a multi-row {@code VALUES (?, ?),
   * (?, ?)} appends one table version. A failed upload runs nothing; objects already uploaded
   * stay in the stage, unreferenced, and a retry reuses them.
   *
   * <p>Retry safety: after {@link LakeException.Unavailable} or {@link LakeException.StageFailed}
   * the statement did not run and may be retried; after any other failure of an INSERT (notably
   * a lost connection or deadline) it may have been applied, and repeating it can insert the
   * rows twice.
   *
   * @return the number of rows changed (0 for DDL)
   * @throws LakeException.InvalidArgument bad SQL, a wrong parameter count or type, a FILE value
   *     for another column or another value for a FILE column, a missing or unreadable file
   * @throws LakeException.NotFound a table or namespace that does not exist
   * @throws LakeException.Unauthenticated, LakeException.PermissionDenied credentials or grants,
   *     or a DataLocation of another tenant
   * @throws LakeException.StageFailed an upload failed (nothing ran)
   * @throws LakeException.Unavailable the server cannot be reached or is not ready
   * @throws LakeException another server error (a server without a stage, for FILE values)
   * @throws IllegalStateException if this client is closed
   */
  public long execute(String sql, Object... params) {
    return executeWithVersion(sql, params).count();
  }

  /**
   * As {@link #execute}, also returning the table version the statement committed (the
   * server's response header {@code lake-table-version}): an INSERT's new version, the one that
   * holds its rows. Throws, and is safe to retry, exactly as {@link #execute}.
   *
   * @return the update count and the version committed (empty for DDL or an INSERT of no rows)
   */
  public ExecuteResult executeWithVersion(String sql, Object... params) {
    Objects.requireNonNull(sql, "sql");
    checkOpen();
    TableVersions.Tagged call = TableVersions.tagged(options);
    FlightSqlClient.PreparedStatement prepared = null;
    try {
      long count;
      if (params.length == 0) {
        count = client.executeUpdate(sql, call.options());
      } else {
        prepared = prepare(sql, params, true);
        count = prepared.executeUpdate(call.options());
      }
      Long version = tableVersions.take(call.call());
      return new ExecuteResult(count, version == null ? OptionalLong.empty()
          : OptionalLong.of(version));
    } catch (FlightRuntimeException e) {
      throw LakeException.from(e);
    } finally {
      tableVersions.take(call.call());
      closeQuietly(prepared);
    }
  }

  /**
   * Appends {@code batches} (1 to {@value #MAX_APPEND_ROWS} rows, all read before anything is
   * sent) to the existing table {@code table} ({@code namespace.table} or {@code
   * lake.namespace.table}) as one new version, exactly once.
   *
   * <p>The operation id is generated once per call and sent with the same payload on every
   * attempt; the server answers a repeat with the version it first committed. A failure that may
   * have committed (server unreachable, deadline, lost reply, a commit conflict: gRPC ABORTED arrives as UNKNOWN) is retried with
   * backoff for {@link #setAppendRetryWindow the retry window}; after it the call throws {@link
   * LakeException.AppendPending}, whose {@link PendingAppend} {@link #resume} completes later.
   * With a resume directory the append is first written there durably, and the file is removed
   * when the outcome is known, so a crashed process's append is found by {@link #pendingAppends}.
   *
   * @return the operation id, the rows and the version holding them
   * @throws LakeException.InvalidArgument no rows or too many, a malformed table name, or columns
   *     other than the table's (nothing committed; do not retry unchanged)
   * @throws LakeException.NotFound the table does not exist
   * @throws LakeException.Unauthenticated, LakeException.PermissionDenied credentials or grants
   * @throws LakeException.AppendPending the outcome is not known; resuming is safe
   * @throws LakeException another definite refusal (nothing committed)
   * @throws java.io.UncheckedIOException if reading {@code batches} or writing the checkpoint
   *     fails (nothing sent)
   * @throws IllegalStateException if this client is closed
   */
  public AppendResult append(String table, ArrowReader batches) {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(batches, "batches");
    checkOpen();
    String target = appendTarget(table);
    try {
      return append(target, batches.getVectorSchemaRoot(), batches::loadNextBatch);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot read the batches to append to " + target, e);
    }
  }

  /**
   * As {@link #append(String, ArrowReader)}, of the one batch {@code rows} holds now (the root
   * stays the caller's, unchanged).
   */
  public AppendResult append(String table, VectorSchemaRoot rows) {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(rows, "rows");
    checkOpen();
    boolean[] given = {false};
    try {
      return append(appendTarget(table), rows, () -> !given[0] && (given[0] = true));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot serialize the rows to append", e);
    }
  }

  /** A source of batches in {@code root}: each call loads the next, false at the end. */
  private interface BatchSource {
    boolean next() throws IOException;
  }

  private AppendResult append(String target, VectorSchemaRoot root, BatchSource batches)
      throws IOException {
    java.io.ByteArrayOutputStream payload = new java.io.ByteArrayOutputStream();
    long rows = 0;
    try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, payload)) {
      writer.start();
      while (batches.next()) {
        rows += root.getRowCount();
        if (rows > MAX_APPEND_ROWS) {
          throw new LakeException.InvalidArgument("an append takes at most " + MAX_APPEND_ROWS
              + " rows; the batches for " + target + " hold more: split them into several"
              + " appends", null);
        }
        if (root.getRowCount() > 0) {
          writer.writeBatch();
        }
      }
      writer.end();
    }
    if (rows == 0) {
      throw new LakeException.InvalidArgument("an append needs at least one row; the batches for "
          + target + " hold none", null);
    }
    PendingAppend pending = new PendingAppend(target, UUID.randomUUID(), rows,
        payload.toByteArray(), null);
    if (resumeDir != null) {
      try {
        pending = pending.writeTo(resumeDir.resolve("appends"));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("cannot write the append checkpoint in "
            + resumeDir + " (nothing was sent)", e);
      }
    }
    return attempt(pending);
  }

  /**
   * Completes a pending append: the same operation and payload again, with a fresh retry window.
   * If an earlier attempt committed, this returns that version and appends nothing.
   *
   * @throws LakeException.AppendPending still not known; resume again later
   * @throws LakeException a definite refusal (see {@link #append})
   * @throws IllegalStateException if this client is closed
   */
  public AppendResult resume(PendingAppend pending) {
    Objects.requireNonNull(pending, "pending");
    checkOpen();
    return attempt(pending);
  }

  /**
   * The appends checkpointed in this client's resume directory whose outcome is not known (by
   * this process or one that crashed), oldest first; resume each with {@link #resume}.
   *
   * @return empty without a resume directory
   * @throws IOException if the directory or a checkpoint cannot be read (the message names it)
   */
  public java.util.List<PendingAppend> pendingAppends() throws IOException {
    if (resumeDir == null || !java.nio.file.Files.isDirectory(resumeDir.resolve("appends"))) {
      return java.util.List.of();
    }
    java.util.List<Path> files;
    try (java.util.stream.Stream<Path> listing =
        java.nio.file.Files.list(resumeDir.resolve("appends"))) {
      files = listing.filter(f -> f.getFileName().toString().endsWith(".append")).sorted()
          .toList();
    }
    java.util.List<PendingAppend> pending = new java.util.ArrayList<>();
    for (Path file : files) {
      try {
        pending.add(PendingAppend.load(file));
      } catch (java.nio.file.NoSuchFileException resumedMeanwhile) {
        // Another process finished it between the listing and the read.
      }
    }
    return pending;
  }

  /**
   * How long {@link #append} and {@link #resume} retry an ambiguous failure (default {@link
   * #DEFAULT_APPEND_RETRY_WINDOW}); zero: one attempt.
   *
   * @throws IllegalArgumentException if negative
   */
  public void setAppendRetryWindow(Duration window) {
    if (window.isNegative()) {
      throw new IllegalArgumentException("the append retry window must not be negative: " + window);
    }
    this.appendRetryWindow = window;
  }

  private AppendResult attempt(PendingAppend pending) {
    String[] parts = pending.table().split("\\.");
    FlightSqlClient.ExecuteIngestOptions ingest = new FlightSqlClient.ExecuteIngestOptions(
        parts[1], TableDefinitionOptions.newBuilder()
            .setIfNotExist(TableDefinitionOptions.TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL)
            .setIfExists(TableDefinitionOptions.TableExistsOption.TABLE_EXISTS_OPTION_APPEND)
            .build(),
        false, null, parts[0], java.util.Map.of("lake.operation_id",
            pending.operationId().toString()));
    TableVersions.Tagged call = TableVersions.tagged(options);
    long deadline = System.nanoTime() + appendRetryWindow.toNanos();
    long backoffMillis = 50;
    boolean ambiguous = false;
    try {
      while (true) {
        checkOpen();
        try (ArrowStreamReader reader = new ArrowStreamReader(
            new java.io.ByteArrayInputStream(pending.payload()), allocator)) {
          long rows = client.executeIngest(reader, ingest, call.options());
          Long version = tableVersions.take(call.call());
          forgetQuietly(pending);
          if (version == null) {
            throw new LakeException("the server accepted the append of " + rows + " rows to "
                + pending.table() + " but named no version (not a lake server?)", null, false);
          }
          return new AppendResult(pending.operationId(), rows, version);
        } catch (FlightRuntimeException e) {
          if (!mayHaveCommitted(e.status().code())) {
            if (!ambiguous) {
              forgetQuietly(pending);
            }
            throw LakeException.from(e);
          }
          ambiguous = true;
          if (System.nanoTime() + backoffMillis * 1_000_000 > deadline) {
            throw new LakeException.AppendPending("the append of " + pending.rows() + " rows to "
                + pending.table() + " (operation " + pending.operationId() + ") may or may not have"
                + " committed: " + e.status().code() + ": " + e.getMessage() + "; resume it with"
                + " LakeClient.resume" + pending.checkpoint().map(f -> " (checkpoint " + f + ")")
                .orElse(""), e, pending);
          }
          try {
            Thread.sleep(backoffMillis);
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new LakeException.AppendPending("interrupted while retrying the append to "
                + pending.table() + " (operation " + pending.operationId() + "); resume it with"
                + " LakeClient.resume", interrupted, pending);
          }
          backoffMillis = Math.min(backoffMillis * 2, 2_000);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException("cannot reread the append payload", e);
        }
      }
    } finally {
      tableVersions.take(call.call());
    }
  }

  // Codes after which the server may have committed the append (or would on a repeat).
  private static boolean mayHaveCommitted(org.apache.arrow.flight.FlightStatusCode code) {
    return switch (code) {
      case UNAVAILABLE, TIMED_OUT, UNKNOWN, INTERNAL -> true;
      default -> false;
    };
  }

  private static void forgetQuietly(PendingAppend pending) {
    try {
      pending.forget();
    } catch (IOException e) {
      // A stale checkpoint only repeats a committed operation, which the server answers as such.
    }
  }

  /** {@code namespace.table} from {@code namespace.table} or {@code lake.namespace.table}. */
  private static String appendTarget(String table) {
    String[] parts = table.split("\\.", -1);
    if (parts.length == 3 && parts[0].equals("lake")) {
      parts = new String[] {parts[1], parts[2]};
    }
    if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
      throw new LakeException.InvalidArgument("append needs a table named namespace.table or"
          + " lake.namespace.table, got '" + table + "'", null);
    }
    return parts[0] + "." + parts[1];
  }

  /**
   * Streams the whole object, verified: at EOF a size or SHA-256 other than the location's fails
   * the read with {@link ObjectVerificationException} naming the object. Reads change nothing:
   * retrying is always safe.
   *
   * @return the stream; close it
   * @throws LakeException.PermissionDenied if {@code location} is not an object of the caller's
   *     stage (another tenant, another store), before any I/O
   * @throws java.nio.file.NoSuchFileException if the object does not exist
   * @throws IOException if the store fails
   * @throws LakeException if the server names no stage or cannot be reached
   * @throws IllegalStateException if this client is closed
   */
  public InputStream open(DataLocation location) throws IOException {
    Objects.requireNonNull(location, "location");
    return ownedStage(location).open(location, 0, location.size());
  }

  /**
   * Streams the bytes {@code [from, toExclusive)} of the object, exactly: fewer bytes fail the
   * read at EOF with {@link ObjectVerificationException} naming the object (a range is not
   * digested; the whole range {@code [0, size)} is, as by {@link #open}). On S3 one ranged GET
   * whose {@code Content-Range} and length are checked. Retrying is always safe.
   *
   * @throws IllegalArgumentException if the range is empty or outside the object, before any I/O
   * @throws LakeException.PermissionDenied, java.nio.file.NoSuchFileException, IOException,
   *     LakeException as {@link #open}
   */
  public InputStream openRange(DataLocation location, long from, long toExclusive)
      throws IOException {
    Objects.requireNonNull(location, "location");
    return ownedStage(location).open(location, from, toExclusive);
  }

  /**
   * A URL that reads the object without credentials for {@code ttl}: an S3 presigned GET. The
   * Query tier signs it with its own storage credentials (action {@code lake.presign}) after
   * checking the object is the caller's tenant's, so a client without storage credentials can
   * hand out objects; a server that cannot sign (no S3 credentials, an older server) leaves it
   * to this client's own credentials, signed locally. No request reaches the store. Safe to retry.
   *
   * @throws UnsupportedOperationException on a local stage ({@code lake dev}): a {@code file:}
   *     URI would be neither time-limited nor readable elsewhere; use {@link #open}
   * @throws IllegalArgumentException if {@code ttl} is not between one second and seven days
   * @throws LakeException.PermissionDenied if {@code location} is not of the caller's stage
   * @throws LakeException the server could not be asked ({@link LakeException.Unavailable})
   * @throws IllegalStateException if this client is closed
   */
  public URI presign(DataLocation location, Duration ttl) {
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(ttl, "ttl");
    ObjectStage objects = ownedStage(location);
    if (ttl.compareTo(Duration.ofSeconds(1)) < 0 || ttl.compareTo(Duration.ofDays(7)) > 0) {
      throw new IllegalArgumentException("a presigned URL lives 1 s to 7 days, asked " + ttl);
    }
    String body = "{\"uri\": " + quoted(location.uri().toString()) + ", \"ttl_seconds\": "
        + ttl.toSeconds() + "}";
    try {
      Iterator<org.apache.arrow.flight.Result> results = flight.doAction(
          new Action(PRESIGN_ACTION, body.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
          options);
      if (!results.hasNext()) {
        throw new LakeException("the server answered " + PRESIGN_ACTION + " with nothing", null,
            false);
      }
      byte[] answer = results.next().getBody();
      results.forEachRemaining(r -> { });
      return URI.create(new com.fasterxml.jackson.databind.ObjectMapper().readTree(answer)
          .path("url").asText());
    } catch (FlightRuntimeException e) {
      // UNIMPLEMENTED: the server does not sign here (a local stage, no storage credentials, an
      // older server without the action): sign with this client's own credentials.
      if (e.status().code() == org.apache.arrow.flight.FlightStatusCode.UNIMPLEMENTED) {
        return objects.presign(location, ttl);
      }
      throw LakeException.from(e);
    } catch (IOException | IllegalArgumentException e) {
      throw new LakeException("the server answered " + PRESIGN_ACTION + " with no usable URL: "
          + e.getMessage(), e, false);
    }
  }

  private static String quoted(String text) {
    return com.fasterxml.jackson.databind.node.TextNode.valueOf(text).toString();
  }

  private ObjectStage ownedStage(DataLocation location) {
    ObjectStage objects = stage();
    if (!objects.owns(location)) {
      throw new LakeException.PermissionDenied(location.uri() + " is not an object of tenant "
          + objects.descriptor().tenant() + "'s stage", null);
    }
    return objects;
  }

  /** The caller's stage, named by the server on first use. */
  private synchronized ObjectStage stage() {
    checkOpen();
    if (stage == null) {
      byte[] body;
      try {
        Iterator<org.apache.arrow.flight.Result> results =
            flight.doAction(new Action(STAGE_ACTION), options);
        if (!results.hasNext()) {
          throw new LakeException("the server answered " + STAGE_ACTION + " with nothing", null,
              false);
        }
        body = results.next().getBody();
        results.forEachRemaining(r -> { });
      } catch (FlightRuntimeException e) {
        throw LakeException.from(e);
      }
      StageDescriptor descriptor;
      try {
        descriptor = StageDescriptor.parse(body);
      } catch (IllegalArgumentException e) {
        throw new LakeException("the server named an unusable stage: " + e.getMessage(), e,
            false);
      }
      stage = ObjectStages.open(descriptor, stageCredentials, resumeDir);
    }
    return stage;
  }

  /**
   * A prepared statement with {@code params} bound (the statement owns the bound root); with
   * {@code files}, FILE values are checked and uploaded first ({@link FileParameters}).
   */
  private FlightSqlClient.PreparedStatement prepare(String sql, Object[] params, boolean files) {
    FlightSqlClient.PreparedStatement prepared = client.prepare(sql, options);
    try {
      Object[] values = files ? FileParameters.upload(allocator, prepared.getParameterSchema(),
          params, this::stage) : params;
      VectorSchemaRoot bound = Parameters.bind(allocator, prepared.getParameterSchema(), values);
      prepared.setParameters(bound);
      return prepared;
    } catch (RuntimeException e) {
      closeQuietly(prepared);
      throw e;
    }
  }

  private void closeQuietly(FlightSqlClient.PreparedStatement prepared) {
    if (prepared != null) {
      try {
        prepared.close(options);
      } catch (RuntimeException ignored) {
        // Lake keeps no server state for a prepared statement; the bound root is closed anyway.
      } finally {
        prepared.clearParameters();
      }
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the lake client is closed");
    }
  }

  /** Closes every open result, the connection and its memory. Idempotent; never throws. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Result result : Set.copyOf(open)) {
      result.close();
    }
    try {
      client.close();
    } catch (Exception ignored) {
      // The channel is shut down regardless.
    }
    if (stage != null) {
      stage.close();
    }
    allocator.close();
  }
}
