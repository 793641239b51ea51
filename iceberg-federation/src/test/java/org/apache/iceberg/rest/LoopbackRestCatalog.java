package org.apache.iceberg.rest;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Iceberg's own REST catalog server (JdbcCatalog over in-memory SQLite) on a free loopback port,
 * warehouse in a local directory. Lives in Iceberg's package because the server's constructor is
 * package-private.
 */
public final class LoopbackRestCatalog implements AutoCloseable {
  private final RESTCatalogServer server;
  private final URI uri;

  private LoopbackRestCatalog(RESTCatalogServer server, URI uri) {
    this.server = server;
    this.uri = uri;
  }

  public static LoopbackRestCatalog start(Path warehouse) throws Exception {
    return start(warehouse.toAbsolutePath().toString(), Map.of("io-impl", "dev.lake.iceberg.LocalFileIO"));
  }

  /** A server whose warehouse is {@code warehouse} (a path or URI) read through {@code io} properties. */
  public static LoopbackRestCatalog start(String warehouse, Map<String, String> io) throws Exception {
    return start(warehouse, io,
        "jdbc:sqlite:file:" + java.util.UUID.randomUUID() + "?mode=memory&cache=shared");
  }

  /**
   * A local-warehouse server whose catalog is kept in the SQLite file {@code catalogFile}, so a
   * later server over the same files sees the same tables (benchmarks reuse generated data).
   */
  public static LoopbackRestCatalog startPersistent(Path warehouse, Path catalogFile)
      throws Exception {
    return start(warehouse.toAbsolutePath().toString(),
        Map.of("io-impl", "dev.lake.iceberg.LocalFileIO"),
        "jdbc:sqlite:" + catalogFile.toAbsolutePath());
  }

  private static LoopbackRestCatalog start(String warehouse, Map<String, String> io, String jdbcUri)
      throws Exception {
    Map<String, String> config = new java.util.HashMap<>(io);
    config.put("warehouse", warehouse);
    config.put(RESTCatalogServer.REST_PORT, "0");
    config.put("uri", jdbcUri);
    RESTCatalogServer server = new RESTCatalogServer(config);
    server.start(false);
    java.lang.reflect.Field field = RESTCatalogServer.class.getDeclaredField("httpServer");
    field.setAccessible(true);
    Server jetty = (Server) field.get(server);
    int port = ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
    return new LoopbackRestCatalog(server, URI.create("http://127.0.0.1:" + port + "/"));
  }

  public URI uri() {
    return uri;
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }
}
