package dev.lake.flight;

import dev.lake.catalog.CatalogException;
import dev.lake.catalog.ConcurrentChangeException;
import dev.lake.catalog.InvalidNameException;
import dev.lake.catalog.TableAlreadyExistsException;
import dev.lake.catalog.TableNotFoundException;
import dev.lake.engine.CommitConflictException;
import dev.lake.engine.CorruptDataException;
import dev.lake.engine.EngineException;
import dev.lake.engine.SchemaMismatchException;
import dev.lake.engine.VersionNotFoundException;
import dev.lake.exec.QueryStoppedException;
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
 * version, segment and column, and {@link SqlException.Kind#INTERNAL} is {@code INTERNAL}. The
 * mapping is the same whether the error is raised before a {@code DoGet} streams or after some
 * batches were sent.
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
      case StatusException status -> status;
      case TicketCodec.InvalidTicketException invalid ->
          status(GrpcStatus.INVALID_ARGUMENT, invalid.getMessage());
      case FlightIpc.IpcException ipc -> status(GrpcStatus.INVALID_ARGUMENT, ipc.getMessage());
      case SqlException sql -> fromSql(sql);
      case CorruptDataException corrupt -> corrupt(corrupt);
      case QueryStoppedException stopped -> stopped(stopped.reason(), stopped.getMessage());
      case TableNotFoundException notFound -> status(GrpcStatus.NOT_FOUND, notFound.getMessage());
      case TableAlreadyExistsException exists ->
          status(GrpcStatus.ALREADY_EXISTS, exists.getMessage());
      case InvalidNameException invalid -> status(GrpcStatus.INVALID_ARGUMENT, invalid.getMessage());
      case ConcurrentChangeException changed -> status(GrpcStatus.ABORTED, changed.getMessage());
      case SchemaMismatchException mismatch ->
          status(GrpcStatus.INVALID_ARGUMENT, withoutLocation(mismatch));
      case VersionNotFoundException missing ->
          status(GrpcStatus.NOT_FOUND, withoutLocation(missing));
      case CommitConflictException conflict ->
          status(GrpcStatus.ABORTED, "another writer kept committing to the table; retry");
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
      case INTERNAL -> internal(e);
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

  private static Throwable unwrap(Throwable e) {
    Throwable current = e;
    while ((current instanceof CompletionException || current instanceof ExecutionException)
        && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }

  static StatusException status(GrpcStatus status, String message) {
    return new StatusException(status, message);
  }
}
