package dev.lake.flight.metasrv;

import dev.lake.catalog.CatalogException;
import dev.lake.catalog.ConcurrentChangeException;
import dev.lake.catalog.InvalidNameException;
import dev.lake.catalog.NamespaceAlreadyExistsException;
import dev.lake.catalog.NamespaceNotEmptyException;
import dev.lake.catalog.NamespaceNotFoundException;
import dev.lake.catalog.OperationConflictException;
import dev.lake.catalog.RegistryUnavailableException;
import dev.lake.catalog.TableAlreadyExistsException;
import dev.lake.catalog.TableIdent;
import dev.lake.catalog.TableNotFoundException;
import dev.lake.engine.CommitConflictException;
import dev.lake.engine.SchemaMismatchException;
import dev.lake.flight.FlightIpc;
import dev.lake.metastore.FencedException;
import dev.lake.metastore.lease.NotLeaderException;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerResponse;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one mapping between the registry's exceptions and Metasrv's Flight statuses, both ways. The
 * server answers a status plus the trailer {@value #KIND} naming the exception's kind (and
 * {@value #TABLE}, {@value #NAMESPACE}, {@value #TABLES} for its subject); the client rebuilds the
 * same exception type from the kind, never from the message.
 *
 * <ul>
 *   <li>table / namespace missing: {@code NOT_FOUND}; name taken: {@code ALREADY_EXISTS};
 *   <li>namespace not empty, an operation id reused for another write (a refusal of the
 *       registry): {@code FAILED_PRECONDITION} — retrying the same request cannot succeed;
 *   <li>the table changed under the write, or the engine lost a commit race: {@code ABORTED} —
 *       retrying with the same operation id is safe;
 *   <li>bad names, schemas, descriptors, digests, IPC: {@code INVALID_ARGUMENT};
 *   <li>not the leader, fenced, no leader known, leader unreachable: {@code UNAVAILABLE} — the
 *       client retries elsewhere with the same operation id;
 *   <li>admission (appends, buffered bytes, workers) and the stream bound: {@code
 *       RESOURCE_EXHAUSTED}, at once;
 *   <li>anything else is {@code INTERNAL} with a generic message (the detail goes to the log).
 * </ul>
 */
final class MetasrvStatus {

  static final String KIND = "lake-error";
  static final String TABLE = "lake-error-table";
  static final String NAMESPACE = "lake-error-namespace";
  static final String TABLES = "lake-error-tables";
  static final String STATUS = "lake-error-status";
  static final String OPERATION = "lake-error-operation";
  static final String CONFLICT = "lake-error-conflict";
  private static final int MAX_MESSAGE = 1_000;
  private static final Logger LOG = LoggerFactory.getLogger(MetasrvStatus.class);

  private MetasrvStatus() {}

  /** A status the server answers. */
  record Refusal(GrpcStatus status, String message, Map<String, String> trailers) {

    Refusal {
      message = message == null ? "" : message.length() <= MAX_MESSAGE ? message
          : message.substring(0, MAX_MESSAGE) + "...";
      trailers = Map.copyOf(trailers);
    }

    static Refusal of(GrpcStatus status, String kind, String message) {
      return new Refusal(status, message, Map.of(KIND, kind));
    }

    /** Ends the call with this status. Event loop only. */
    void answer(GrpcServerResponse<?, ?> response) {
      trailers.forEach((k, v) -> response.trailers().set(k, v));
      response.trailers().set(STATUS, status.name());
      response.status(status).statusMessage(message).end();
    }
  }

  /** The status a failure is answered with. */
  static Refusal toStatus(Throwable error) {
    Throwable e = error;
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    if (unavailable(e)) {
      return Refusal.of(GrpcStatus.UNAVAILABLE, "unavailable", e.getMessage());
    }
    return switch (e) {
      case RefusedException refused -> refused.refusal;
      case dev.lake.flight.auth.AccessDeniedException denied ->
          Refusal.of(GrpcStatus.PERMISSION_DENIED, "permission_denied", denied.getMessage());
      case dev.lake.flight.auth.AuthenticationException unauthenticated ->
          Refusal.of(GrpcStatus.UNAUTHENTICATED, "unauthenticated", unauthenticated.getMessage());
      case RemoteRefusalException remote -> new Refusal(remote.status, remote.getMessage(),
          Map.of(KIND, remote.kind));
      case TableNotFoundException missing -> table(GrpcStatus.NOT_FOUND, "table_not_found",
          missing, missing.getMessage());
      case TableAlreadyExistsException taken -> table(GrpcStatus.ALREADY_EXISTS, "table_exists",
          taken, taken.getMessage());
      case NamespaceNotFoundException missing -> namespace(GrpcStatus.NOT_FOUND,
          "namespace_not_found", missing.getMessage());
      case NamespaceAlreadyExistsException taken -> namespace(GrpcStatus.ALREADY_EXISTS,
          "namespace_exists", taken.getMessage());
      case NamespaceNotEmptyException full -> new Refusal(GrpcStatus.FAILED_PRECONDITION,
          full.getMessage(), Map.of(KIND, "namespace_not_empty", NAMESPACE, full.namespace(),
              TABLES, String.join(",", full.tables().subList(0, Math.min(100,
                  full.tables().size())))));
      case OperationConflictException reused -> new Refusal(GrpcStatus.FAILED_PRECONDITION,
          reused.getMessage(), Map.of(KIND, "operation_conflict", OPERATION,
              reused.operationId().toString(), CONFLICT, excerpt(reused.what())));
      case InvalidNameException invalid -> Refusal.of(GrpcStatus.INVALID_ARGUMENT,
          "invalid_name", invalid.getMessage());
      case ConcurrentChangeException changed -> table(GrpcStatus.ABORTED, "concurrent_change",
          changed, changed.getMessage());
      case CommitConflictException conflict -> Refusal.of(GrpcStatus.ABORTED, "commit_conflict",
          conflict.getMessage());
      case SchemaMismatchException mismatch -> Refusal.of(GrpcStatus.INVALID_ARGUMENT,
          "schema_mismatch", mismatch.getMessage());
      case MetasrvProtocol.BadRequestException bad -> Refusal.of(GrpcStatus.INVALID_ARGUMENT,
          "bad_request", bad.getMessage());
      case FlightIpc.IpcException ipc -> Refusal.of(GrpcStatus.INVALID_ARGUMENT, "bad_request",
          ipc.getMessage());
      case IllegalArgumentException bad -> Refusal.of(GrpcStatus.INVALID_ARGUMENT,
          "invalid_argument", bad.getMessage());
      case RejectedExecutionException busy -> Refusal.of(GrpcStatus.RESOURCE_EXHAUSTED, "busy",
          "the Metasrv worker pool is full; retry later");
      // A subclass of CatalogException is a precise refusal that changed nothing.
      case CatalogException refused when refused.getClass() != CatalogException.class ->
          Refusal.of(GrpcStatus.FAILED_PRECONDITION, "refused", refused.getMessage());
      default -> {
        LOG.error("internal error answered as INTERNAL", e);
        yield Refusal.of(GrpcStatus.INTERNAL, "internal",
            "the Metasrv hit an internal or storage failure; see its log");
      }
    };
  }

  // Not leading any more, or superseded: the client must go to the (new) leader.
  private static boolean unavailable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof NotLeaderException || t instanceof FencedException
          || t instanceof NoLeaderException || t instanceof RegistryUnavailableException) {
        return true;
      }
    }
    return false;
  }

  private static Refusal table(GrpcStatus status, String kind, CatalogException e,
      String message) {
    return new Refusal(status, message, Map.of(KIND, kind));
  }

  private static Refusal table(GrpcStatus status, String kind, TableNotFoundException e,
      String message) {
    return new Refusal(status, message, Map.of(KIND, kind, TABLE, e.ident().toString()));
  }

  private static Refusal table(GrpcStatus status, String kind, TableAlreadyExistsException e,
      String message) {
    return new Refusal(status, message, Map.of(KIND, kind, TABLE, e.ident().toString()));
  }

  private static Refusal namespace(GrpcStatus status, String kind, String message) {
    return new Refusal(status, message, Map.of(KIND, kind));
  }

  /**
   * Whether {@code e} is the transport's report of a connection lost mid-call ({@code UNKNOWN}
   * without lake's trailers: the replica died or closed the channel), not a refusal of the
   * replica. The client retries it like {@code UNAVAILABLE}: every call is a read or a write
   * carrying its operation id, so a retry is exactly-once.
   */
  static boolean isLostConnection(FlightRuntimeException e) {
    return e.status().code() == FlightStatusCode.UNKNOWN
        && trailer(e.status(), KIND) == null;
  }

  /**
   * A trailer of {@code status}, or null when it has none: a status that did not come from the
   * server's refusal (the transport's, a proxy's) carries metadata without lake's trailers, and
   * {@code ErrorFlightMetadata.get} throws on a missing key.
   */
  private static String trailer(CallStatus status, String key) {
    return status.metadata() == null || !status.metadata().containsKey(key) ? null
        : status.metadata().get(key);
  }

  /**
   * The client side: the exception a failed call stands for. {@code UNAVAILABLE} is handled by
   * the client's retry loop before this is called.
   *
   * @param subject the table or namespace the call concerned, to rebuild the precise exception
   */
  static RuntimeException toException(FlightRuntimeException e, Subject subject) {
    CallStatus status = e.status();
    String kind = trailer(status, KIND);
    String message = status.description();
    if (kind == null && status.code() == FlightStatusCode.UNAUTHENTICATED) {
      // The service-token gate (no kind trailer): kept UNAUTHENTICATED, so a follower whose
      // token the leader refuses answers that, not INTERNAL.
      return new RemoteRefusalException(GrpcStatus.UNAUTHENTICATED, "unauthenticated",
          "Metasrv answered UNAUTHENTICATED: " + message);
    }
    if (kind == null) {
      return new CatalogException("Metasrv answered " + status.code() + ": " + message, e);
    }
    return switch (kind) {
      case "table_not_found" -> new TableNotFoundException(subject.table());
      case "table_exists" -> new TableAlreadyExistsException(subject.table());
      case "namespace_not_found" -> new NamespaceNotFoundException(subject.namespace());
      case "namespace_exists" -> new NamespaceAlreadyExistsException(subject.namespace());
      case "namespace_not_empty" -> {
        String tables = trailer(status, TABLES);
        yield new NamespaceNotEmptyException(subject.namespace(),
            tables == null || tables.isEmpty() ? List.of() : Arrays.asList(tables.split(",")));
      }
      case "invalid_name" -> new InvalidNameException(message);
      case "operation_conflict" -> operationConflict(status, message);
      case "concurrent_change" ->
          new ConcurrentChangeException(subject.table(), "writing it at the Metasrv leader");
      case "commit_conflict" -> new CommitConflictException(null, message);
      case "schema_mismatch" -> new SchemaMismatchException(null, message);
      case "invalid_argument", "bad_request" -> new IllegalArgumentException(message);
      default -> new RemoteRefusalException(grpcStatus(trailer(status, STATUS)), kind,
          message);
    };
  }

  private static RuntimeException operationConflict(CallStatus status, String message) {
    try {
      return new OperationConflictException(UUID.fromString(trailer(status, OPERATION)),
          String.valueOf(trailer(status, CONFLICT)));
    } catch (IllegalArgumentException | NullPointerException malformed) {
      return new CatalogException("Metasrv refused the write: " + message);
    }
  }

  private static String excerpt(String text) {
    return text.length() <= 300 ? text : text.substring(0, 300) + "...";
  }

  private static GrpcStatus grpcStatus(String name) {
    try {
      return name == null ? GrpcStatus.INTERNAL : GrpcStatus.valueOf(name);
    } catch (IllegalArgumentException e) {
      return GrpcStatus.INTERNAL;
    }
  }

  /** A refusal decided by the server itself (admission, bounds), carried to the edge. */
  static final class RefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient Refusal refusal;

    RefusedException(GrpcStatus status, String kind, String message) {
      super(message);
      this.refusal = Refusal.of(status, kind, message);
    }
  }

  /** This replica does not lead and cannot reach a leader. Nothing was changed. */
  static final class NoLeaderException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NoLeaderException(String message) {
      super(message);
    }
  }

  /**
   * A precise refusal of the leader this client has no closer exception for (for example a newer
   * catalog refusal); a replica forwarding it answers the same status and kind.
   */
  static final class RemoteRefusalException extends CatalogException {
    private static final long serialVersionUID = 1L;
    final GrpcStatus status;
    final String kind;

    RemoteRefusalException(GrpcStatus status, String kind, String message) {
      super(message);
      this.status = status;
      this.kind = kind;
    }
  }

  /** What a client call concerned: a table, a namespace, or neither. */
  record Subject(TableIdent table, String namespace) {
    static final Subject NONE = new Subject(null, null);

    static Subject of(TableIdent table) {
      return new Subject(table, table.namespace());
    }

    static Subject of(String namespace) {
      return new Subject(null, namespace);
    }
  }
}
