package org.apache.iceberg.rest;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.credentials.ImmutableCredential;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ImmutableLoadCredentialsResponse;
import org.apache.iceberg.rest.responses.LoadCredentialsResponseParser;
import org.apache.iceberg.rest.responses.LoadTableResponse;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Iceberg's own REST catalog ({@link RESTCatalogAdapter} over a JdbcCatalog on SQLite, served by
 * its {@link RESTCatalogServlet} on Jetty) on a free loopback port. Lives in Iceberg's package
 * because the servlet's request parsing is package-private. Optionally the server vends S3
 * credentials as a production catalog does ({@link Vending}).
 */
public final class LoopbackRestCatalog implements AutoCloseable {
  private final Server jetty;
  private final RESTCatalogAdapter adapter;
  private final Catalog backend;
  private final URI uri;
  private final AtomicBoolean closed = new AtomicBoolean();

  private LoopbackRestCatalog(Server jetty, RESTCatalogAdapter adapter, Catalog backend, URI uri) {
    this.jetty = jetty;
    this.adapter = adapter;
    this.backend = backend;
    this.uri = uri;
  }

  public static LoopbackRestCatalog start(Path warehouse) throws Exception {
    return start(warehouse.toAbsolutePath().toString(), Map.of("io-impl", "dev.lake.iceberg.LocalFileIO"));
  }

  /** A server whose warehouse is {@code warehouse} (a path or URI) read through {@code io} properties. */
  public static LoopbackRestCatalog start(String warehouse, Map<String, String> io) throws Exception {
    return start(warehouse, io, memory(), null);
  }

  /**
   * A server that also vends {@code vending}'s S3 credentials in every LoadTable answer to a client
   * asking for them ({@code X-Iceberg-Access-Delegation: vended-credentials}) and serves the
   * table credentials endpoint ({@code GET v1/namespaces/{ns}/tables/{t}/credentials}).
   */
  public static LoopbackRestCatalog startVending(String warehouse, Map<String, String> io, Vending vending)
      throws Exception {
    return start(warehouse, io, memory(), Objects.requireNonNull(vending, "vending"));
  }

  /**
   * A local-warehouse server whose catalog is kept in the SQLite file {@code catalogFile}, so a
   * later server over the same files sees the same tables (benchmarks reuse generated data).
   */
  public static LoopbackRestCatalog startPersistent(Path warehouse, Path catalogFile)
      throws Exception {
    return start(warehouse.toAbsolutePath().toString(),
        Map.of("io-impl", "dev.lake.iceberg.LocalFileIO"),
        "jdbc:sqlite:" + catalogFile.toAbsolutePath(), null);
  }

  private static String memory() {
    return "jdbc:sqlite:file:" + UUID.randomUUID() + "?mode=memory&cache=shared";
  }

  private static LoopbackRestCatalog start(String warehouse, Map<String, String> io, String jdbcUri,
      Vending vending) throws Exception {
    Map<String, String> config = new HashMap<>(io);
    config.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
    config.put(CatalogProperties.URI, jdbcUri);
    config.put(CatalogProperties.CATALOG_IMPL, JdbcCatalog.class.getName());
    config.put("jdbc.schema-version", "V1");
    Catalog backend = CatalogUtil.buildIcebergCatalog("rest_backend", config, new Configuration());
    RESTCatalogAdapter adapter = vending == null ? new RESTCatalogAdapter(backend) : vending.adapter(backend);
    RESTCatalogServlet servlet = new RESTCatalogServlet(adapter) {
      @Override
      protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (vending != null && request.getRequestURI().matches("/v1/(.+/)?namespaces/[^/]+/tables/[^/]+/credentials")) {
          vending.refresh(request, response, this);
        } else {
          super.doGet(request, response);
        }
      }
    };
    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.addServlet(new ServletHolder(servlet), "/*");
    Server jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    jetty.setHandler(context);
    jetty.start();
    return new LoopbackRestCatalog(jetty, adapter, backend,
        URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/"));
  }

  public URI uri() {
    return uri;
  }

  /** Stops the server and closes its catalog; a second call does nothing. */
  @Override
  public void close() throws Exception {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      jetty.stop();
    } finally {
      adapter.close();
      if (backend instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
  }

  /**
   * The S3 credentials a vending server hands out, changeable while it runs (a catalog rotating
   * keys), and what clients asked of it. A credential map holds {@code s3.access-key-id}, {@code
   * s3.secret-access-key}, {@code s3.session-token} and {@code s3.session-token-expires-at-ms}.
   */
  public static final class Vending {
    static final String DELEGATION = "X-Iceberg-Access-Delegation";

    private volatile Map<String, String> onLoad;
    private volatile Map<String, String> onRefresh;
    private volatile String storagePrefix;
    private final AtomicInteger delegatedLoads = new AtomicInteger();
    private final AtomicInteger refreshes = new AtomicInteger();

    /** Vends {@code credentials} both on LoadTable and from the credentials endpoint. */
    public Vending(Map<String, String> credentials) {
      this.onLoad = Map.copyOf(credentials);
      this.onRefresh = onLoad;
    }

    /** Session credentials for {@code accessKey}/{@code secretKey} that expire at {@code expiresAt}. */
    public static Map<String, String> s3(String accessKey, String secretKey, Instant expiresAt) {
      return Map.of("s3.access-key-id", accessKey, "s3.secret-access-key", secretKey,
          "s3.session-token", "session-of-" + accessKey,
          "s3.session-token-expires-at-ms", Long.toString(expiresAt.toEpochMilli()));
    }

    /** From now on LoadTable answers carry {@code credentials}. */
    public void onLoad(Map<String, String> credentials) {
      this.onLoad = Map.copyOf(credentials);
    }

    /** From now on the credentials endpoint answers {@code credentials}. */
    public void onRefresh(Map<String, String> credentials) {
      this.onRefresh = Map.copyOf(credentials);
    }

    /**
     * From now on LoadTable answers carry the credentials as {@code storage-credentials} for
     * locations under {@code prefix} rather than in the table's {@code config}.
     */
    public void asStorageCredentials(String prefix) {
      this.storagePrefix = prefix;
    }

    /** From now on the credentials endpoint refuses (403 Forbidden). */
    public void refuseRefresh() {
      this.onRefresh = null;
    }

    /** LoadTable requests that asked for vended credentials (and got them). */
    public int delegatedLoads() {
      return delegatedLoads.get();
    }

    /** Calls of the credentials endpoint. */
    public int refreshes() {
      return refreshes.get();
    }

    /** Iceberg's adapter, adding the credentials and refresh endpoint to LoadTable answers that ask. */
    RESTCatalogAdapter adapter(Catalog catalog) {
      return new RESTCatalogAdapter(catalog) {
        @Override
        public <T extends RESTResponse> T handleRequest(Route route, Map<String, String> vars,
            HTTPRequest request, Class<T> responseType, Consumer<Map<String, String>> responseHeaders) {
          T response = super.handleRequest(route, vars, request, responseType, responseHeaders);
          boolean asked = request.headers().firstEntry(DELEGATION)
              .map(h -> List.of(h.value().split(",")).contains("vended-credentials")).orElse(false);
          if (route != Route.LOAD_TABLE || !(response instanceof LoadTableResponse load) || !asked) {
            return response;
          }
          delegatedLoads.incrementAndGet();
          LoadTableResponse.Builder vended = LoadTableResponse.builder()
              .withTableMetadata(load.tableMetadata())
              .addAllConfig(load.config())
              .addConfig("client.refresh-credentials-endpoint", request.path() + "/credentials")
              .addAllCredentials(load.credentials());
          String prefix = storagePrefix;
          if (prefix == null) {
            vended.addAllConfig(onLoad);
          } else {
            vended.addCredential(ImmutableCredential.builder().prefix(prefix).config(onLoad).build());
          }
          return castResponse(responseType, vended.build());
        }
      };
    }

    /** Answers a call of the table credentials endpoint (absent from Iceberg 1.11's routes). */
    void refresh(HttpServletRequest request, HttpServletResponse response, RESTCatalogServlet servlet)
        throws IOException {
      refreshes.incrementAndGet();
      Map<String, String> credentials = onRefresh;
      response.setContentType("application/json");
      if (credentials == null) {
        servlet.handle(response).accept(ErrorResponse.builder().responseCode(HttpServletResponse.SC_FORBIDDEN)
            .withType("ForbiddenException").withMessage("no credentials for " + request.getRequestURI()).build());
        return;
      }
      response.setStatus(HttpServletResponse.SC_OK);
      response.getWriter().write(LoadCredentialsResponseParser.toJson(ImmutableLoadCredentialsResponse.builder()
          .addCredentials(ImmutableCredential.builder().prefix("s3").config(credentials).build())
          .build()));
    }
  }

}
