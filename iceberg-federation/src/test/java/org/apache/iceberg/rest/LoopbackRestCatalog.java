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
    RESTCatalogServer server = new RESTCatalogServer(Map.of(
        "warehouse", warehouse.toAbsolutePath().toString(),
        RESTCatalogServer.REST_PORT, "0",
        "io-impl", "dev.lake.iceberg.LocalFileIO",
        "uri", "jdbc:sqlite:file:" + java.util.UUID.randomUUID() + "?mode=memory&cache=shared"));
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
