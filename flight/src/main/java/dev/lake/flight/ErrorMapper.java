package dev.lake.flight;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lake.catalog.CatalogException;
import dev.lake.catalog.ConcurrentChangeException;
import dev.lake.catalog.InvalidNameException;
import dev.lake.catalog.OperationConflictException;
import dev.lake.catalog.RegistryUnavailableException;
import dev.lake.catalog.TableAlreadyExistsException;
import dev.lake.catalog.TableNotFoundException;
import dev.lake.engine.CommitConflictException;
import dev.lake.engine.CorruptDataException;
import dev.lake.engine.CorruptTableException;
import dev.lake.engine.CorruptMetadataException;
import dev.lake.engine.EngineException;
import dev.lake.engine.SourceUnavailableException;
import dev.lake.engine.SchemaMismatchException;
import dev.lake.engine.VersionNotFoundException;
import dev.lake.exec.QueryStoppedException;
import dev.lake.flight.auth.AccessDeniedException;
import dev.lake.flight.auth.AuthenticationException;
import dev.lake.sql.SqlException;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.StatusException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where lake's exceptions become gRPC statuses. Refusals (the request is wrong,
 * the thing is missing) carry the exception's message, which names the table, column or
 * position; failures of the server itself become {@code INTERNAL} with a generic message and
 * the stack trace goes to the server log only, because engine and catalog messages can contain
 * storage paths.
 *
 * <p>{@link SqlException.Kind#UNSUPPORTED} maps to {@code UNIMPLEMENTED}: the SQL is valid, lake
 * does not do it yet, and retrying elsewhere will not help. Whose fault a failure while running
 * is was decided where it was thrown, and this class only reads the kind: {@link
 * SqlException.Kind#EXECUTION} (division by zero, an overflow, a failed cast, naming the value)
 * is {@code INVALID_ARGUMENT}, {@link SqlException.Kind#CORRUPT_DATA} (a {@link
 * CorruptDataException}: a segment failing its checksum) is {@code DATA_LOSS} naming table,
 * version, segment and column, as is a damaged commit log entry or checkpoint ({@link
 * CorruptMetadataException}, naming table, file and version), and {@link SqlException.Kind#INTERNAL} is {@code INTERNAL}. The
 * mapping is the same whether the error is raised before a {@code DoGet} streams or after some
 * batches were sent.
 *
 * <p>A registry authority that cannot be reached ({@link RegistryUnavailableException}: a write
 * while Metasrv is down, a read before the first catalog snapshot) is {@code UNAVAILABLE}: retry
 * later, with the same operation id for a write.
 *
 * <p>A query stopped by its deadline ({@link SqlException.Kind#TIMED_OUT}, the call's gRPC
 * deadline or the server's query timeout) is {@code DEADLINE_EXCEEDED}; one stopped because the
 * client cancelled the call or went away ({@link SqlException.Kind#CANCELLED}) is {@code
 * CANCELLED}.
 */
final class ErrorMapper {

  private static final Logger LOG = LoggerFactory.getLogger(ErrorMapper.class);

  private ErrorMapper() {}

  static StatusException toStatus(Throwable error) {
    Throwable e = unwrap(error);
    return switch (e) {
      case StatusException status -> bounded(status);
      case AuthenticationException unauthenticated ->
          status(GrpcStatus.UNAUTHENTICATED, unauthenticated.getMessage());
      case Throwable any when denial(any) != null ->
          status(GrpcStatus.PERMISSION_DENIED, denial(any).getMessage());
      case TicketCodec.InvalidTicketException invalid ->
          status(GrpcStatus.INVALID_ARGUMENT, invalid.getMessage());
      case dev.lake.flight.ticket.TicketRefusedException refused -> status(switch (refused.reason()) {
        case MALFORMED, WRONG_KIND -> GrpcStatus.INVALID_ARGUMENT;
        case FORGED, UNKNOWN_KEY, EXPIRED -> GrpcStatus.UNAUTHENTICATED;
        case OTHER_AUDIENCE, OTHER_PRINCIPAL -> GrpcStatus.PERMISSION_DENIED;
      }, refused.getMessage());
      case TicketCodec.TicketTooLargeException large ->
          status(GrpcStatus.RESOURCE_EXHAUSTED, large.getMessage());
      case InvalidProtocolBufferException malformed -> status(GrpcStatus.INVALID_ARGUMENT,
          "a Flight SQL message in the request cannot be parsed: " + malformed.getMessage());
      case StackOverflowError deep -> {
        LOG.warn("a statement within the stated limits overflowed a worker's stack", deep);
        yield status(GrpcStatus.RESOURCE_EXHAUSTED,
            "the statement nests too deeply for the server's stack; simplify it (expression depth)");
      }
      case FlightIpc.IpcException ipc -> status(GrpcStatus.INVALID_ARGUMENT, ipc.getMessage());
      case SqlException sql -> fromSql(sql);
      case CorruptDataException corrupt -> corrupt(corrupt);
      case CorruptMetadataException corrupt -> {
        LOG.error("corrupt table metadata answered as DATA_LOSS", corrupt);
        yield status(GrpcStatus.DATA_LOSS, "corrupt data in " + corrupt.describe());
      }
      case CorruptTableException damaged -> {
        LOG.error("a table file that cannot be read answered as DATA_LOSS", damaged);
        yield status(GrpcStatus.DATA_LOSS, damaged.getMessage());
      }
      case QueryStoppedException stopped -> stopped(stopped.reason(), stopped.getMessage());
      case RegistryUnavailableException unavailable ->
          status(GrpcStatus.UNAVAILABLE, unavailable.getMessage());
      case SourceUnavailableException unavailable ->
          status(GrpcStatus.UNAVAILABLE, unavailable.getMessage());
      case TableNotFoundException notFound -> status(GrpcStatus.NOT_FOUND, notFound.getMessage());
      case TableAlreadyExistsException exists ->
          status(GrpcStatus.ALREADY_EXISTS, exists.getMessage());
      case InvalidNameException invalid -> status(GrpcStatus.INVALID_ARGUMENT, invalid.getMessage());
      case ConcurrentChangeException changed -> status(GrpcStatus.ABORTED, changed.getMessage());
      case OperationConflictException reused ->
          status(GrpcStatus.ALREADY_EXISTS, reused.getMessage());
      case SchemaMismatchException mismatch ->
          status(GrpcStatus.INVALID_ARGUMENT, withoutLocation(mismatch));
      case VersionNotFoundException missing ->
          status(GrpcStatus.NOT_FOUND, withoutLocation(missing));
      case CommitConflictException conflict ->
          status(GrpcStatus.ABORTED, "another writer kept committing to the table; retry");
      case QueryAdmission.AdmissionRefusedException refused ->
          status(GrpcStatus.RESOURCE_EXHAUSTED, refused.getMessage());
      case RejectedExecutionException busy ->
          status(GrpcStatus.RESOURCE_EXHAUSTED, "the server is busy; retry later");
      default -> internal(e);
    };
  }

  private static StatusException fromSql(SqlException e) {
    String message = e.getMessage();
    return switch (e.kind()) {
      case SYNTAX -> status(GrpcStatus.INVALID_ARGUMENT, withPosition(
          message.startsWith("syntax error") ? message : "syntax error: " + message, e));
      case TABLE_NOT_FOUND, VERSION_NOT_FOUND -> status(GrpcStatus.NOT_FOUND, message);
      case ALREADY_EXISTS -> status(GrpcStatus.ALREADY_EXISTS, message);
      case NOT_EMPTY -> status(GrpcStatus.FAILED_PRECONDITION, message);
      case INVALID -> status(GrpcStatus.INVALID_ARGUMENT, withPosition(message, e));
      case UNSUPPORTED -> status(GrpcStatus.UNIMPLEMENTED, message);
      case RESOURCE_EXHAUSTED -> status(GrpcStatus.RESOURCE_EXHAUSTED, message);
      case CANCELLED -> stopped(QueryStoppedException.Reason.CANCELLED, message);
      case TIMED_OUT -> stopped(QueryStoppedException.Reason.TIMED_OUT, message);
      case EXECUTION -> status(GrpcStatus.INVALID_ARGUMENT, message);
      case CORRUPT_DATA -> e.getCause() instanceof CorruptDataException corrupt
          ? corrupt(corrupt)
          : status(GrpcStatus.DATA_LOSS, message);
      case INTERNAL -> e.getCause() instanceof CorruptMetadataException
          || e.getCause() instanceof CorruptTableException
          || e.getCause() instanceof RegistryUnavailableException
          || e.getCause() instanceof SourceUnavailableException
          ? toStatus(e.getCause())
          : internal(e);
    };
  }

  private static StatusException stopped(QueryStoppedException.Reason reason, String message) {
    return switch (reason) {
      case CANCELLED -> status(GrpcStatus.CANCELLED, message);
      case TIMED_OUT -> status(GrpcStatus.DEADLINE_EXCEEDED, message);
    };
  }

  // The front end usually puts the position in its message already; add it only when missing.
  private static String withPosition(String message, SqlException e) {
    String position = "line " + e.line() + ", column " + e.column();
    return e.line() <= 0 || message.contains(position) ? message : message + " (" + position + ")";
  }

  // Damaged stored data: the client learns table, version, segment and column (never the
  // location), the log gets the location and the stack trace.
  private static StatusException corrupt(CorruptDataException e) {
    LOG.error("corrupt data answered as DATA_LOSS", e);
    return status(GrpcStatus.DATA_LOSS, "corrupt data in " + e.describe());
  }

  private static StatusException internal(Throwable e) {
    LOG.error("internal error answered as INTERNAL", e);
    String what = e instanceof EngineException || e instanceof CatalogException
        ? "a storage or catalog failure"
        : "an internal error";
    return status(GrpcStatus.INTERNAL, "the server hit " + what + "; see the server log");
  }

  // Engine messages end with " (table <uri>)"; the uri is a server path, not for clients.
  private static String withoutLocation(EngineException e) {
    String message = e.getMessage();
    if (e.location() != null) {
      String suffix = " (table " + e.location() + ")";
      if (message.endsWith(suffix)) {
        return message.substring(0, message.length() - suffix.length());
      }
    }
    return message;
  }

  /** A grant refusal anywhere in the cause chain (the SQL validator wraps what the catalog throws). */
  private static AccessDeniedException denial(Throwable e) {
    for (Throwable current = e; current != null; current = current.getCause()) {
      if (current instanceof AccessDeniedException denied) {
        return denied;
      }
      if (current.getCause() == current) {
        break;
      }
    }
    return null;
  }

  private static Throwable unwrap(Throwable e) {
    Throwable current = e;
    while ((current instanceof CompletionException || current instanceof ExecutionException)
        && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }

  /**
   * A status whose message is at most {@link #MAX_MESSAGE_BYTES} once percent-encoded into the
   * {@code grpc-message} trailer: a longer one keeps its start and its end (where positions and
   * limits are named) around a note of how much was left out. Stock gRPC clients refuse trailers
   * over 8 KiB (and then report a protocol error instead of the status), and messages quote the
   * client's input, which can be megabytes long; this is the one place that bounds them.
   */
  static StatusException status(GrpcStatus status, String message) {
    return new StatusException(status, excerpt(message));
  }

  /** The bound on a status message, in bytes of its percent-encoded form. */
  static final int MAX_MESSAGE_BYTES = 4_096;

  private static StatusException bounded(StatusException e) {
    String message = e.message();
    return message == null || encodedLength(message, message.length()) <= MAX_MESSAGE_BYTES
        ? e : new StatusException(e.status(), excerpt(message));
  }

  static String excerpt(String message) {
    if (message == null || encodedLength(message, message.length()) <= MAX_MESSAGE_BYTES) {
      return message;
    }
    // Worst case for the note: "... [2147483647 characters left out] ..." percent-encoded.
    int budget = MAX_MESSAGE_BYTES - 160;
    int head = prefixWithin(message, budget * 3 / 4);
    int tail = suffixWithin(message, budget - encodedLength(message, head));
    return message.substring(0, head) + " ... [" + (tail - head) + " characters left out] ... "
        + message.substring(tail);
  }

  // How many leading characters fit in the budget, never splitting a surrogate pair.
  private static int prefixWithin(String s, int budget) {
    int used = 0;
    int i = 0;
    while (i < s.length()) {
      int cp = s.codePointAt(i);
      used += encodedLength(cp);
      if (used > budget) {
        break;
      }
      i += Character.charCount(cp);
    }
    return i;
  }

  // The start index of the longest suffix that fits in the budget.
  private static int suffixWithin(String s, int budget) {
    int used = 0;
    int i = s.length();
    while (i > 0) {
      int cp = s.codePointBefore(i);
      used += encodedLength(cp);
      if (used > budget) {
        break;
      }
      i -= Character.charCount(cp);
    }
    return i;
  }

  private static int encodedLength(String s, int end) {
    int bytes = 0;
    for (int i = 0; i < end; ) {
      int cp = s.codePointAt(i);
      bytes += encodedLength(cp);
      i += Character.charCount(cp);
    }
    return bytes;
  }

  // Vert.x percent-encodes every byte but ASCII letters, digits and ".-*_".
  private static int encodedLength(int cp) {
    if (cp < 0x80) {
      return Character.isLetterOrDigit(cp) || cp == '.' || cp == '-' || cp == '*' || cp == '_'
          ? 1 : 3;
    }
    return 3 * (cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);
  }
}
