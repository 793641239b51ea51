package dev.lake.flight.lancerest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lake.catalog.LanceNamespaces;
import dev.lake.catalog.RegistryUnavailableException;
import dev.lake.flight.auth.AuthenticationException;
import dev.lake.flight.auth.Authenticator;
import dev.lake.flight.auth.Grants;
import dev.lake.flight.auth.Principal;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Lance Namespace REST binding: an HTTP/1.1 server (Vert.x) speaking the spec's routes
 * ({@code /v1/namespace/{id}/...}, {@code /v1/table/{id}/...}, {@code /v1/table}) over {@link
 * LanceNamespaces}. The event loop only parses and answers; every operation runs on a Vert.x
 * worker thread. Data-plane, index, tag, version and transaction routes answer code 0 {@code
 * Unsupported}. A periodic {@link LanceNamespaces#refresh} (on a worker, never two at once) makes
 * what stock writers committed visible to SQL within {@code refreshInterval}.
 *
 * <p>Given an {@link Authenticator}, every call must carry {@code x-api-key: <token>} or {@code
 * authorization: Bearer <token>} (else 401, code 16) and runs as that {@link Principal}: listings
 * show only granted namespaces, other calls outside its grants or role answer 403 (code 15).
 * Without one every caller is {@link Principal#ANONYMOUS}: bind it to loopback (as {@code lake
 * dev} does).
 */
public final class LanceRestServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LanceRestServer.class);
  private static final ObjectMapper MAPPER = new ObjectMapper();
  /** Larger request bodies are refused: every request of the served routes is small JSON. */
  static final int MAX_BODY_BYTES = 1 << 20;
  private static final Set<String> WRITES = Set.of("create", "drop", "declare", "register",
      "deregister", "rename");

  private final Vertx vertx;
  private final HttpServer server;
  private final long refreshTimer;

  private LanceRestServer(Vertx vertx, HttpServer server, long refreshTimer) {
    this.vertx = vertx;
    this.server = server;
    this.refreshTimer = refreshTimer;
  }

  /**
   * Starts serving on {@code host:port} (0 = a free port); returns once it accepts connections.
   *
   * @throws IllegalStateException if the port cannot be bound
   */
  public static LanceRestServer start(LanceNamespaces namespaces, String host, int port,
      Duration refreshInterval) {
    return start(namespaces, host, port, refreshInterval, null);
  }

  /**
   * As {@link #start(LanceNamespaces, String, int, Duration)}, each call authenticated by {@code
   * authenticator} (null: none).
   */
  public static LanceRestServer start(LanceNamespaces namespaces, String host, int port,
      Duration refreshInterval, Authenticator authenticator) {
    Objects.requireNonNull(namespaces, "namespaces");
    return start(new Access() {
      @Override
      public <T> T apply(Function<LanceNamespaces, T> operation) {
        return operation.apply(namespaces);
      }
    }, host, port, refreshInterval, authenticator);
  }

  /**
   * How each call reaches the registry: in one process a fixed {@link LanceNamespaces}; on a
   * Metasrv replica the leader's current catalog, or {@link RegistryUnavailableException} on a
   * follower (answered 503, code 17).
   */
  public interface Access {
    <T> T apply(Function<LanceNamespaces, T> operation);
  }

  /** As {@link #start(LanceNamespaces, String, int, Duration)}, each call through {@code access}. */
  public static LanceRestServer start(Access access, String host, int port, Duration refreshInterval) {
    return start(access, host, port, refreshInterval, null);
  }

  /**
   * As {@link #start(Access, String, int, Duration)}, each call authenticated by {@code
   * authenticator} (null: none).
   */
  public static LanceRestServer start(Access access, String host, int port, Duration refreshInterval,
      Authenticator authenticator) {
    Objects.requireNonNull(access, "access");
    Vertx vertx = Vertx.vertx();
    HttpServer server = vertx.createHttpServer(new HttpServerOptions().setHost(host).setPort(port))
        .requestHandler(request -> receive(vertx, access, authenticator, request));
    try {
      server.listen().await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      vertx.close();
      throw new IllegalStateException("cannot serve the Lance Namespace REST on " + host + ":" + port
          + ": " + e.getMessage(), e);
    }
    AtomicBoolean refreshing = new AtomicBoolean();
    long timer = vertx.setPeriodic(Math.max(1, refreshInterval.toMillis()), id -> {
      if (refreshing.compareAndSet(false, true)) {
        vertx.executeBlocking(() -> refresh(access), false).onComplete(done -> {
          refreshing.set(false);
          if (done.failed()) {
            LOG.warn("Lance Namespace refresh failed", done.cause());
          }
        });
      }
    });
    return new LanceRestServer(vertx, server, timer);
  }

  private static int refresh(Access access) {
    try {
      return access.apply(LanceNamespaces::refresh);
    } catch (RegistryUnavailableException notLeading) {
      return 0; // a follower: the leader follows
    }
  }

  /** The bound port. */
  public int port() {
    return server.actualPort();
  }

  /** Stops accepting requests and waits (bounded) for the server's threads to stop. */
  @Override
  public void close() {
    vertx.cancelTimer(refreshTimer);
    try {
      vertx.close().await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("Lance Namespace REST server did not stop cleanly", e);
    }
  }

  private static void receive(Vertx vertx, Access access, Authenticator authenticator,
      HttpServerRequest request) {
    String length = request.getHeader("content-length");
    if (length != null && length.matches("\\d{1,18}") && Long.parseLong(length) > MAX_BODY_BYTES) {
      reply(request, new RestError(413, RestError.INVALID_INPUT, "InvalidInput",
          "request body over " + MAX_BODY_BYTES + " bytes"));
      return;
    }
    Buffer body = Buffer.buffer();
    AtomicBoolean tooLarge = new AtomicBoolean();
    request.handler(chunk -> {
      if (body.length() + chunk.length() > MAX_BODY_BYTES) {
        tooLarge.set(true);
      } else {
        body.appendBuffer(chunk);
      }
    });
    request.exceptionHandler(e -> LOG.debug("Lance Namespace REST request broke off", e));
    request.endHandler(end -> {
      if (tooLarge.get()) {
        reply(request, new RestError(413, RestError.INVALID_INPUT, "InvalidInput",
            "request body over " + MAX_BODY_BYTES + " bytes"));
        return;
      }
      Function<RestCall, NamespaceOperations.Reply> operation;
      RestCall call;
      Principal caller;
      try {
        caller = caller(authenticator, request);
        Route route = route(request.method(), request.path());
        operation = c -> access.apply(namespaces -> route.operation(new NamespaceOperations(namespaces)).apply(c));
        call = RestCall.of(request.path(), route.rawId(), query(request), lanceHeaders(request), json(body));
      } catch (RuntimeException e) {
        reply(request, RestError.of(e));
        return;
      }
      Future<NamespaceOperations.Reply> done = vertx.executeBlocking(
          () -> caller == null ? operation.apply(call) : Grants.callAs(caller, () -> operation.apply(call)),
          false);
      done.onComplete(result -> {
        if (result.succeeded()) {
          reply(request, result.result());
        } else {
          reply(request, RestError.of(result.cause()));
        }
      });
    });
  }

  /**
   * The principal the request's {@code x-api-key} (preferred) or {@code authorization: Bearer}
   * token names; null when the server authenticates nobody.
   *
   * @throws AuthenticationException when neither is sent or the token names nobody
   */
  private static Principal caller(Authenticator authenticator, HttpServerRequest request) {
    if (authenticator == null) {
      return null;
    }
    String apiKey = request.getHeader("x-api-key");
    if (apiKey != null && !apiKey.isBlank()) {
      return authenticator.bearer(apiKey.trim());
    }
    String authorization = request.getHeader("authorization");
    if (authorization == null || authorization.isBlank()) {
      throw new AuthenticationException("no credentials: send 'x-api-key: <token>' or"
          + " 'authorization: Bearer <token>'");
    }
    return authenticator.authenticate(authorization);
  }

  /** A matched route: its operation and the raw identifier segment. */
  private record Route(String rawId, Function<NamespaceOperations, Function<RestCall, NamespaceOperations.Reply>> bind) {
    Function<RestCall, NamespaceOperations.Reply> operation(NamespaceOperations operations) {
      return bind.apply(operations);
    }
  }

  private static Route route(HttpMethod method, String path) {
    String[] s = path.split("/", -1);
    int n = s.length;
    if (n >= 2 && s[n - 1].isEmpty() && n > 3) {
      n--; // one trailing slash is tolerated, as the reference server does
    }
    if (n < 3 || !s[0].isEmpty() || !"v1".equals(s[1])) {
      throw notFound(path);
    }
    String kind = s[2];
    if ("table".equals(kind) && n == 3) {
      requireRead(method, path);
      return new Route(null, ops -> ops::listAllTables);
    }
    if (n < 5 || s[3].isEmpty()) {
      throw notFound(path);
    }
    String id = s[3];
    String op = String.join("/", java.util.Arrays.copyOfRange(s, 4, n));
    if ("namespace".equals(kind)) {
      Function<NamespaceOperations, Function<RestCall, NamespaceOperations.Reply>> bind = switch (op) {
        case "create" -> ops -> ops::createNamespace;
        case "list" -> ops -> ops::listNamespaces;
        case "describe" -> ops -> ops::describeNamespace;
        case "exists" -> ops -> ops::namespaceExists;
        case "drop" -> ops -> ops::dropNamespace;
        case "table/list" -> ops -> ops::listTables;
        default -> throw notFound(path);
      };
      requireMethod(method, op, path);
      return new Route(id, bind);
    }
    if ("table".equals(kind)) {
      Function<NamespaceOperations, Function<RestCall, NamespaceOperations.Reply>> bind = switch (op) {
        case "declare" -> ops -> ops::declareTable;
        case "describe" -> ops -> ops::describeTable;
        case "exists" -> ops -> ops::tableExists;
        case "register" -> ops -> ops::registerTable;
        case "deregister" -> ops -> ops::deregisterTable;
        case "drop" -> ops -> ops::dropTable;
        case "rename" -> ops -> ops::renameTable;
        case "count_rows" -> ops -> ops::countTableRows;
        default -> throw new RestError.Unsupported("table operation '" + op + "' is not served by"
            + " lake's Lance Namespace (write and read data with Lance at the table's location, or"
            + " through Flight SQL)");
      };
      requireMethod(method, op, path);
      return new Route(id, bind);
    }
    if ("transaction".equals(kind)) {
      throw new RestError.Unsupported("transactions are not served by lake's Lance Namespace");
    }
    throw notFound(path);
  }

  private static void requireMethod(HttpMethod method, String op, String path) {
    if (WRITES.contains(op)) {
      if (method != HttpMethod.POST) {
        throw new RestError.BadRequest(method + " " + path + ": this operation takes POST");
      }
    } else {
      requireRead(method, path);
    }
  }

  // Read operations take the spec's method and the one stock clients send where they differ.
  private static void requireRead(HttpMethod method, String path) {
    if (method != HttpMethod.GET && method != HttpMethod.POST) {
      throw new RestError.BadRequest(method + " " + path + ": this operation takes GET or POST");
    }
  }

  private static RuntimeException notFound(String path) {
    return new RestError.NoRoute("no Lance Namespace route " + path);
  }

  private static Map<String, String> query(HttpServerRequest request) {
    Map<String, String> query = new HashMap<>();
    request.params().forEach(e -> query.putIfAbsent(e.getKey(), e.getValue()));
    return query;
  }

  private static Map<String, String> lanceHeaders(HttpServerRequest request) {
    Map<String, String> headers = new HashMap<>();
    request.headers().forEach(e -> {
      String name = e.getKey().toLowerCase(Locale.ROOT);
      if (name.startsWith("x-lance-")) {
        headers.putIfAbsent(name, e.getValue());
      }
    });
    return headers;
  }

  private static JsonNode json(Buffer body) {
    if (body.length() == 0 || body.toString().isBlank()) {
      return null;
    }
    try {
      return MAPPER.readTree(body.getBytes());
    } catch (JsonProcessingException e) {
      throw new RestError.BadRequest("the request body is not valid JSON: " + e.getOriginalMessage());
    } catch (java.io.IOException e) {
      throw new RestError.BadRequest("the request body cannot be read: " + e.getMessage());
    }
  }

  private static void reply(HttpServerRequest request, NamespaceOperations.Reply reply) {
    var response = request.response().setStatusCode(reply.status());
    copyRequestId(request);
    if (reply.body() == null) {
      response.end();
    } else {
      response.putHeader("content-type", "application/json").end(reply.body().toString());
    }
  }

  private static void reply(HttpServerRequest request, RestError error) {
    ObjectNode body = MAPPER.createObjectNode();
    body.put("error", error.message());
    body.put("code", error.code());
    body.put("detail", error.kind());
    body.put("instance", request.path());
    copyRequestId(request);
    if (error.code() == RestError.UNAUTHENTICATED) {
      request.response().putHeader("www-authenticate", "Bearer");
    }
    request.response().setStatusCode(error.status()).putHeader("content-type", "application/json")
        .end(body.toString());
  }

  private static void copyRequestId(HttpServerRequest request) {
    String id = request.getHeader("x-request-id");
    if (id != null) {
      request.response().putHeader("x-request-id", id);
    }
  }
}
