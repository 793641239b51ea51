package dev.lake.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * nginx as the gRPC load balancer in front of Query replicas: writes a configuration under a run
 * directory (temp files, pid and logs there too, so no root is needed) and starts nginx in the
 * foreground. HTTP/2 on a loopback port, {@code grpc_pass} to an upstream of the replicas,
 * unlimited message sizes and hour-long stream timeouts (a DoGet of a large result streams for
 * long); a replica that refuses connections or fails before answering is skipped for the next one
 * (a client retrying through the balancer lands on a live replica).
 *
 * <p>With {@link Tls} nginx terminates TLS ({@code listen ... ssl http2}, the cluster's server
 * certificate) and re-encrypts to the replicas ({@code grpc_pass grpcs://}), verifying their
 * certificate against the CA under the name {@value #UPSTREAM_TLS_NAME}; headers, {@code
 * authorization} among them, pass through unchanged.
 */
final class NginxBalancer {

  /** Where Debian's package installs it; {@code LAKE_NGINX} overrides. */
  static final String DEFAULT_BINARY = "/usr/sbin/nginx";

  /** The name nginx checks the replicas' certificates for (and sends as SNI). */
  static final String UPSTREAM_TLS_NAME = "localhost";

  private NginxBalancer() {}

  /**
   * TLS on both sides of nginx: {@code certificate} and {@code key} (PEM) served to clients,
   * {@code trustedCa} (PEM) what the replicas' certificates must be signed by.
   */
  record Tls(Path certificate, Path key, Path trustedCa) {}

  /** The nginx binary, if installed. */
  static Optional<Path> binary() {
    String configured = System.getenv("LAKE_NGINX");
    Path path = Path.of(configured != null && !configured.isBlank() ? configured : DEFAULT_BINARY);
    return Files.isExecutable(path) ? Optional.of(path) : Optional.empty();
  }

  /**
   * The configuration balancing {@code 127.0.0.1:port} over {@code upstreams} (host:port),
   * plaintext or, with {@code tls}, TLS on both hops.
   */
  static String config(Path runDir, int port, List<String> upstreams, Optional<Tls> tls) {
    StringBuilder servers = new StringBuilder();
    for (String upstream : upstreams) {
      servers.append("    server ").append(upstream).append(" max_fails=1 fail_timeout=2s;\n");
    }
    Path tmp = runDir.resolve("tmp");
    return """
        # Written by lake; regenerated at every start.
        worker_processes 1;
        pid %1$s/nginx.pid;
        error_log %1$s/logs/error.log warn;
        events { worker_connections 4096; }
        http {
          access_log %1$s/logs/access.log;
          client_body_temp_path %2$s/body;
          proxy_temp_path %2$s/proxy;
          fastcgi_temp_path %2$s/fastcgi;
          uwsgi_temp_path %2$s/uwsgi;
          scgi_temp_path %2$s/scgi;
          upstream lake_query {
        %3$s    keepalive 64;
          }
          server {
            listen 127.0.0.1:%4$d%5$s http2;
        %6$s    client_max_body_size 0;
            http2_max_concurrent_streams 1024;
            grpc_connect_timeout 5s;
            grpc_read_timeout 1h;
            grpc_send_timeout 1h;
            grpc_buffer_size 1m;
            grpc_next_upstream error timeout;
            grpc_next_upstream_tries 0;
            location / {
              grpc_pass %7$s://lake_query;
        %8$s    }
          }
        }
        """.formatted(runDir, tmp, servers, port, tls.isPresent() ? " ssl" : "",
        tls.map(NginxBalancer::serverTls).orElse(""), tls.isPresent() ? "grpcs" : "grpc",
        tls.map(NginxBalancer::upstreamTls).orElse(""));
  }

  private static String serverTls(Tls tls) {
    return """
            ssl_certificate %s;
            ssl_certificate_key %s;
            ssl_protocols TLSv1.2 TLSv1.3;
            ssl_session_cache shared:lake_tls:1m;
        """.formatted(tls.certificate(), tls.key());
  }

  private static String upstreamTls(Tls tls) {
    return """
              grpc_ssl_trusted_certificate %s;
              grpc_ssl_verify on;
              grpc_ssl_name %s;
              grpc_ssl_server_name on;
              grpc_ssl_protocols TLSv1.2 TLSv1.3;
              grpc_ssl_session_reuse on;
        """.formatted(tls.trustedCa(), UPSTREAM_TLS_NAME);
  }

  /**
   * Writes the configuration into {@code runDir} and starts nginx in the foreground, its output
   * appended to {@code log}.
   *
   * @throws IllegalStateException if nginx is not installed
   */
  static Process start(Path runDir, int port, List<String> upstreams, Optional<Tls> tls, Path log)
      throws IOException {
    Path nginx = binary().orElseThrow(() -> new IllegalStateException("nginx is not installed ("
        + DEFAULT_BINARY + " missing; apt-get install nginx, or set LAKE_NGINX)"));
    Files.createDirectories(runDir.resolve("logs"));
    Files.createDirectories(runDir.resolve("tmp"));
    Path conf = runDir.resolve("nginx.conf");
    Files.writeString(conf, config(runDir, port, upstreams, tls));
    return new ProcessBuilder(nginx.toString(), "-p", runDir.toString(), "-e",
        runDir.resolve("logs/error.log").toString(), "-c", conf.toString(), "-g", "daemon off;")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
  }
}
