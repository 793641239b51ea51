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
 */
final class NginxBalancer {

  /** Where Debian's package installs it; {@code LAKE_NGINX} overrides. */
  static final String DEFAULT_BINARY = "/usr/sbin/nginx";

  private NginxBalancer() {}

  /** The nginx binary, if installed. */
  static Optional<Path> binary() {
    String configured = System.getenv("LAKE_NGINX");
    Path path = Path.of(configured != null && !configured.isBlank() ? configured : DEFAULT_BINARY);
    return Files.isExecutable(path) ? Optional.of(path) : Optional.empty();
  }

  /** The configuration balancing {@code 127.0.0.1:port} over {@code upstreams} (host:port). */
  static String config(Path runDir, int port, List<String> upstreams) {
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
            listen 127.0.0.1:%4$d http2;
            client_max_body_size 0;
            http2_max_concurrent_streams 1024;
            grpc_connect_timeout 5s;
            grpc_read_timeout 1h;
            grpc_send_timeout 1h;
            grpc_buffer_size 1m;
            grpc_next_upstream error timeout;
            grpc_next_upstream_tries 0;
            location / {
              grpc_pass grpc://lake_query;
            }
          }
        }
        """.formatted(runDir, tmp, servers, port);
  }

  /**
   * Writes the configuration into {@code runDir} and starts nginx in the foreground, its output
   * appended to {@code log}.
   *
   * @throws IllegalStateException if nginx is not installed
   */
  static Process start(Path runDir, int port, List<String> upstreams, Path log) throws IOException {
    Path nginx = binary().orElseThrow(() -> new IllegalStateException("nginx is not installed ("
        + DEFAULT_BINARY + " missing; apt-get install nginx, or set LAKE_NGINX)"));
    Files.createDirectories(runDir.resolve("logs"));
    Files.createDirectories(runDir.resolve("tmp"));
    Path conf = runDir.resolve("nginx.conf");
    Files.writeString(conf, config(runDir, port, upstreams));
    return new ProcessBuilder(nginx.toString(), "-p", runDir.toString(), "-e",
        runDir.resolve("logs/error.log").toString(), "-c", conf.toString(), "-g", "daemon off;")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
  }
}
