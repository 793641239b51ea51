package dev.lake.cli.sql;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import org.apache.arrow.flight.Location;
import picocli.CommandLine;

/**
 * A Flight SQL endpoint: {@code grpc://host:port} (or {@code grpc+tcp://}) in plaintext,
 * {@code grpc+tls://host:port} over TLS checked against the JVM's trusted certificates. Without a
 * port, {@value #DEFAULT_PORT} (the port {@code lake dev} serves) is meant.
 */
public record Endpoint(String host, int port, boolean tls) {

  public static final int DEFAULT_PORT = 31337;

  public Endpoint {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("an endpoint needs a host");
    }
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException("port " + port + " is not between 1 and 65535");
    }
  }

  /**
   * Parses an endpoint URI.
   *
   * @throws IllegalArgumentException naming what is wrong with {@code text}
   */
  public static Endpoint parse(String text) {
    URI uri;
    try {
      uri = new URI(text.strip());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("'" + text + "' is not a URI: " + e.getReason());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    boolean tls = switch (scheme) {
      case "grpc", "grpc+tcp" -> false;
      case "grpc+tls" -> true;
      default -> throw new IllegalArgumentException("'" + text
          + "' is not a Flight endpoint; expected grpc://host:port or grpc+tls://host:port");
    };
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("'" + text + "' names no host; expected "
          + scheme + "://host:port");
    }
    if (uri.getUserInfo() != null || uri.getQuery() != null
        || (uri.getPath() != null && !uri.getPath().isEmpty() && !uri.getPath().equals("/"))) {
      throw new IllegalArgumentException("'" + text + "' has more than a host and a port; expected "
          + scheme + "://host:port");
    }
    String host = uri.getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return new Endpoint(host, uri.getPort() == -1 ? DEFAULT_PORT : uri.getPort(), tls);
  }

  Location location() {
    return tls ? Location.forGrpcTls(host, port) : Location.forGrpcInsecure(host, port);
  }

  @Override
  public String toString() {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return (tls ? "grpc+tls://" : "grpc://") + h + ":" + port;
  }

  /** For picocli: a bad URI is a usage error naming the option's value. */
  static final class Converter implements CommandLine.ITypeConverter<Endpoint> {
    @Override
    public Endpoint convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
