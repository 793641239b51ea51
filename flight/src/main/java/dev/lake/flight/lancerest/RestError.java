package dev.lake.flight.lancerest;

import dev.lake.catalog.ConcurrentChangeException;
import dev.lake.catalog.InvalidLocationException;
import dev.lake.catalog.InvalidNameException;
import dev.lake.catalog.InvalidTableStateException;
import dev.lake.catalog.NamespaceAlreadyExistsException;
import dev.lake.catalog.NamespaceNotEmptyException;
import dev.lake.catalog.NamespaceNotFoundException;
import dev.lake.catalog.RegistryUnavailableException;
import dev.lake.catalog.TableAlreadyExistsException;
import dev.lake.catalog.TableNotFoundException;
import dev.lake.engine.CapabilityNotSupportedException;
import dev.lake.engine.CommitConflictException;
import dev.lake.engine.CorruptTableException;
import dev.lake.engine.VersionNotFoundException;
import dev.lake.flight.auth.AccessDeniedException;
import dev.lake.flight.auth.AuthenticationException;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where lake's exceptions become Lance Namespace {@code ErrorResponse}s: the spec's
 * numeric code (which stock clients classify errors by) and the HTTP status the reference
 * {@code RestAdapter} answers with for it. Refusals carry the exception's message; failures of the
 * server itself answer code 18 with a generic message and go to the log.
 */
record RestError(int status, int code, String kind, String message) {

  private static final Logger LOG = LoggerFactory.getLogger(RestError.class);

  static final int UNSUPPORTED = 0;
  static final int INVALID_INPUT = 13;
  static final int UNAUTHENTICATED = 16;

  /** A request lake cannot accept as sent (malformed JSON, id mismatch, bad parameter). */
  static final class BadRequest extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadRequest(String message) {
      super(message);
    }
  }

  /** An operation of the spec lake does not serve. */
  static final class Unsupported extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unsupported(String message) {
      super(message);
    }
  }

  /** A path that is no route of the spec. */
  static final class NoRoute extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NoRoute(String message) {
      super(message);
    }
  }

  static RestError of(Throwable error) {
    Throwable e = error;
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return switch (e) {
      case NamespaceNotFoundException x -> new RestError(404, 1, "NamespaceNotFound", x.getMessage());
      case NamespaceAlreadyExistsException x -> new RestError(409, 2, "NamespaceAlreadyExists", x.getMessage());
      case NamespaceNotEmptyException x -> new RestError(409, 3, "NamespaceNotEmpty", x.getMessage());
      case TableNotFoundException x -> new RestError(404, 4, "TableNotFound", x.getMessage());
      case TableAlreadyExistsException x -> new RestError(409, 5, "TableAlreadyExists", x.getMessage());
      case VersionNotFoundException x -> new RestError(404, 11, "TableVersionNotFound", x.getMessage());
      case InvalidNameException x -> new RestError(400, INVALID_INPUT, "InvalidInput", x.getMessage());
      case InvalidLocationException x -> new RestError(400, INVALID_INPUT, "InvalidInput", x.getMessage());
      case BadRequest x -> new RestError(400, INVALID_INPUT, "InvalidInput", x.getMessage());
      case IllegalArgumentException x -> new RestError(400, INVALID_INPUT, "InvalidInput", x.getMessage());
      case ConcurrentChangeException x -> new RestError(409, 14, "ConcurrentModification", x.getMessage());
      case CommitConflictException x -> new RestError(409, 14, "ConcurrentModification", x.getMessage());
      case RegistryUnavailableException x -> new RestError(503, 17, "ServiceUnavailable", x.getMessage());
      case InvalidTableStateException x -> new RestError(409, 19, "InvalidTableState", x.getMessage());
      case CorruptTableException x -> new RestError(409, 19, "InvalidTableState", x.getMessage());
      case AuthenticationException x -> new RestError(401, UNAUTHENTICATED, "Unauthenticated", x.getMessage());
      case AccessDeniedException x -> new RestError(403, 15, "PermissionDenied", x.getMessage());
      case NoRoute x -> new RestError(404, UNSUPPORTED, "Unsupported", x.getMessage());
      case Unsupported x -> new RestError(501, UNSUPPORTED, "Unsupported", x.getMessage());
      case CapabilityNotSupportedException x -> new RestError(501, UNSUPPORTED, "Unsupported", x.getMessage());
      default -> {
        LOG.error("Lance Namespace REST call failed", e);
        yield new RestError(500, 18, "Internal", "internal error; see the server log");
      }
    };
  }
}
