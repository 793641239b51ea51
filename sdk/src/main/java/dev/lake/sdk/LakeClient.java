package dev.lake.sdk;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
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
 * {@link Boolean}, {@link java.time.LocalDate}, {@link java.time.Instant} and {@code null}.
 */
public final class LakeClient implements AutoCloseable {

  private final BufferAllocator allocator;
  private final FlightSqlClient client;
  private final CallOption[] options;
  private final Set<Result> open = Collections.newSetFromMap(new ConcurrentHashMap<>());
  private volatile boolean closed;

  private LakeClient(BufferAllocator allocator, FlightSqlClient client, CallOption[] options) {
    this.allocator = allocator;
    this.client = client;
    this.options = options;
  }

  /**
   * A client for {@code uri}: {@code grpc://host:port} or {@code grpc+tcp://host:port}
   * (plaintext) or {@code grpc+tls://host:port} (TLS, the server certificate checked against the
   * JVM's default trust store). No call is made yet: an unreachable server shows as
   * {@link LakeException.Unavailable} on the first query.
   *
   * @throws IllegalArgumentException if the URI is malformed, has another scheme, or lacks a
   *     host or port
   * @throws NullPointerException if an argument is null
   */
  public static LakeClient connect(String uri, Credentials credentials) {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(credentials, "credentials");
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
      FlightClient flight = FlightClient.builder(allocator, location).build();
      return new LakeClient(allocator, new FlightSqlClient(flight), credentials.callOptions());
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
    FlightSqlClient.PreparedStatement prepared = null;
    try {
      FlightInfo info;
      if (params.length == 0) {
        info = client.execute(sql, options);
      } else {
        prepared = prepare(sql, params);
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
   * <p>Retry safety: after {@link LakeException.Unavailable} the statement did not run and may be
   * retried; after any other failure of an INSERT (notably a lost connection or deadline) it may
   * have been applied, and repeating it can insert the rows twice.
   *
   * @return the number of rows changed (0 for DDL)
   * @throws LakeException.InvalidArgument bad SQL, a wrong parameter count or type
   * @throws LakeException.NotFound a table or namespace that does not exist
   * @throws LakeException.Unauthenticated, LakeException.PermissionDenied credentials or grants
   * @throws LakeException.Unavailable the server cannot be reached or is not ready
   * @throws LakeException another server error
   * @throws IllegalStateException if this client is closed
   */
  public long execute(String sql, Object... params) {
    Objects.requireNonNull(sql, "sql");
    checkOpen();
    if (params.length == 0) {
      try {
        return client.executeUpdate(sql, options);
      } catch (FlightRuntimeException e) {
        throw LakeException.from(e);
      }
    }
    FlightSqlClient.PreparedStatement prepared = null;
    try {
      prepared = prepare(sql, params);
      return prepared.executeUpdate(options);
    } catch (FlightRuntimeException e) {
      throw LakeException.from(e);
    } finally {
      closeQuietly(prepared);
    }
  }

  /** A prepared statement with {@code params} bound (the statement owns the bound root). */
  private FlightSqlClient.PreparedStatement prepare(String sql, Object[] params) {
    FlightSqlClient.PreparedStatement prepared = client.prepare(sql, options);
    try {
      VectorSchemaRoot bound = Parameters.bind(allocator, prepared.getParameterSchema(), params);
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
    allocator.close();
  }
}
