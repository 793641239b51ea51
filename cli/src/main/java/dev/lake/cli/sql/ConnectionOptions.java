package dev.lake.cli.sql;

import picocli.CommandLine.Option;

/** The endpoint and bearer token of the client commands ({@code lake sql}, {@code put}, {@code get}). */
public final class ConnectionOptions {

  @Option(names = {"-e", "--endpoint"}, converter = Endpoint.Converter.class,
      defaultValue = "${env:LAKE_ENDPOINT:-grpc://127.0.0.1:31337}", paramLabel = "URI",
      description = "Flight SQL endpoint: grpc://host:port, or grpc+tls://host:port for TLS"
          + " (default: $LAKE_ENDPOINT or ${DEFAULT-VALUE}, where `lake dev` listens).")
  Endpoint endpoint;

  @Option(names = {"-t", "--token"}, defaultValue = "${env:LAKE_TOKEN}", paramLabel = "TOKEN",
      description = "Bearer token sent on every call as `authorization: Bearer TOKEN`"
          + " (default: $LAKE_TOKEN; none when unset).")
  String token;

  /** The endpoint as a URI ({@code grpc://host:port} or {@code grpc+tls://host:port}). */
  public Endpoint endpoint() {
    return endpoint;
  }

  /** The bearer token, or null for none. */
  public String token() {
    return token;
  }
}
