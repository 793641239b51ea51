package dev.lake.cli.sql;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.LocationSchemes;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One Flight SQL connection, through the stock {@link FlightSqlClient} only, so that any Flight
 * SQL endpoint serves it. Every statement is prepared first: a prepared statement whose dataset
 * schema has columns is a query, executed and streamed endpoint by endpoint; one with an empty
 * dataset schema is an update (DDL, INSERT), executed for its count. Connecting is lazy: an
 * unreachable endpoint shows as {@code UNAVAILABLE} on the first statement.
 *
 * <p>Not thread-safe: one statement at a time, from one thread (Ctrl-C reaches it through
 * {@link Cancellation}).
 */
public final class SqlSession implements AutoCloseable {

  /** What a statement did: a query and its row count, or an update and its update count. */
  public record Outcome(boolean query, long count) {}

  private final Endpoint endpoint;
  private final BearerToken token;
  private final byte[] trustedCa;
  private final BufferAllocator allocator;
  private final FlightClient flight;
  private final FlightSqlClient sql;
  /** Clients for results that a server hands out at other locations. */
  private final Map<URI, FlightClient> elsewhere = new LinkedHashMap<>();

  private SqlSession(Endpoint endpoint, BearerToken token, byte[] trustedCa,
      BufferAllocator allocator, FlightClient flight) {
    this.endpoint = endpoint;
    this.token = token;
    this.trustedCa = trustedCa;
    this.allocator = allocator;
    this.flight = flight;
    this.sql = new FlightSqlClient(flight);
  }

  /**
   * A session with {@code endpoint}, sending {@code authorization: Bearer <token>} on every call
   * when {@code token} is not null. Makes no call yet.
   *
   * @throws IllegalArgumentException if the token is blank or holds control characters
   */
  public static SqlSession open(Endpoint endpoint, String token) {
    return open(endpoint, token, null);
  }

  /**
   * As {@link #open(Endpoint, String)}, trusting the PEM CA certificates {@code trustedCa} (null:
   * the JVM's trust store) for a {@code grpc+tls} endpoint.
   *
   * @throws java.io.UncheckedIOException if the CA file cannot be read
   */
  public static SqlSession open(Endpoint endpoint, String token, java.nio.file.Path trustedCa) {
    BearerToken bearer = token == null ? null : new BearerToken(token);
    byte[] ca = null;
    if (trustedCa != null) {
      try {
        ca = java.nio.file.Files.readAllBytes(trustedCa);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("cannot read the CA file " + trustedCa, e);
      }
    }
    BufferAllocator allocator = new RootAllocator();
    try {
      return new SqlSession(endpoint, bearer, ca, allocator,
          client(endpoint.location(), bearer, ca, allocator));
    } catch (RuntimeException e) {
      allocator.close();
      throw e;
    }
  }

  public Endpoint endpoint() {
    return endpoint;
  }

  /**
   * Runs one statement, handing a query's result to {@code printer} batch by batch.
   *
   * @throws FlightRuntimeException with the server's status when the statement fails, or
   *     {@code UNAVAILABLE} when the endpoint cannot be reached; a failure in the middle of a
   *     result leaves what was already printed
   */
  public Outcome execute(String statement, ResultPrinter printer, Cancellation cancellation) {
    FlightSqlClient.PreparedStatement prepared = sql.prepare(statement);
    FlightRuntimeException failure = null;
    try {
      if (prepared.getResultSetSchema().getFields().isEmpty()) {
        return new Outcome(false, prepared.executeUpdate());
      }
      return new Outcome(true, stream(prepared.execute(), printer, cancellation));
    } catch (FlightRuntimeException e) {
      failure = e;
      throw e;
    } finally {
      close(prepared, failure);
    }
  }

  private long stream(FlightInfo info, ResultPrinter printer, Cancellation cancellation) {
    long rows = 0;
    boolean begun = false;
    for (FlightEndpoint part : info.getEndpoints()) {
      try (FlightStream results = clientFor(part).getStream(part.getTicket())) {
        cancellation.streaming(results);
        if (!begun) {
          printer.begin(results.getSchema());
          begun = true;
        }
        while (results.next()) {
          rows += results.getRoot().getRowCount();
          printer.rows(results.getRoot());
        }
      } catch (FlightRuntimeException e) {
        throw e;
      } catch (Exception e) {
        // FlightStream.close() declares Exception; a failed close after a complete read is a
        // transport failure like any other.
        throw CallStatus.INTERNAL.withDescription("closing the result stream failed: " + e.getMessage())
            .withCause(e).toRuntimeException();
      }
    }
    if (!begun) {
      printer.begin(info.getSchemaOptional().orElseGet(
          () -> new Schema(List.of())));
    }
    printer.end();
    return rows;
  }

  /** The client that serves {@code part}: this one, unless the server named another location. */
  private FlightClient clientFor(FlightEndpoint part) {
    List<Location> locations = part.getLocations();
    if (locations.isEmpty()) {
      return flight;
    }
    for (Location location : locations) {
      if (location.getUri().getScheme().equals(LocationSchemes.REUSE_CONNECTION)
          || location.getUri().equals(endpoint.location().getUri())) {
        return flight;
      }
    }
    Location first = locations.getFirst();
    return elsewhere.computeIfAbsent(first.getUri(),
        uri -> client(first, token, trustedCa, allocator));
  }

  private static FlightClient client(Location location, BearerToken token, byte[] trustedCa,
      BufferAllocator allocator) {
    FlightClient.Builder builder = FlightClient.builder(allocator, location);
    if (trustedCa != null) {
      builder.trustedCertificates(new java.io.ByteArrayInputStream(trustedCa));
    }
    if (token != null) {
      builder.intercept(token);
    }
    return builder.build();
  }

  /**
   * Releases the prepared statement. A failed release never fails the statement, whose result
   * was delivered: handles need no release on lake, and an interrupt left by Ctrl-C would cancel
   * this call too. It is recorded on the statement's own failure, if there is one.
   */
  private static void close(FlightSqlClient.PreparedStatement prepared, RuntimeException failure) {
    boolean interrupted = Thread.interrupted();
    try {
      prepared.close(new CallOption[0]);
    } catch (RuntimeException e) {
      if (failure != null) {
        failure.addSuppressed(e);
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void close() {
    List<AutoCloseable> clients = new ArrayList<>(elsewhere.values());
    clients.add(sql);
    for (AutoCloseable client : clients) {
      try {
        client.close();
      } catch (Exception e) {
        // closing a channel waits for it to end; a failed wait leaves nothing to undo
      }
    }
    allocator.close();
  }
}
