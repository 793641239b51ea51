package dev.lake.flight.auth;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.Location;

/**
 * How the tiers authenticate to Metasrv (Query→Metasrv and the follower→leader hop): a shared
 * service token every Metasrv call carries as {@code authorization: Bearer}, and the CA that
 * signed Metasrv's TLS certificate. Both optional; {@link #NONE} is the loopback dev shape.
 *
 * @param token the shared service token, or null for none
 * @param trustedCa PEM CA to verify Metasrv's certificate, or null for plaintext
 */
public record ServiceCredentials(String token, Path trustedCa) {

  public static final ServiceCredentials NONE = new ServiceCredentials(null, null);

  /** @throws IllegalArgumentException if the token is blank or the CA file is missing */
  public ServiceCredentials {
    if (token != null && token.isBlank()) {
      throw new IllegalArgumentException("the service token must not be blank");
    }
    if (trustedCa != null && !Files.isRegularFile(trustedCa)) {
      throw new IllegalArgumentException("the TLS CA file " + trustedCa + " does not exist");
    }
  }

  /**
   * Reads the token from the first line of {@code file} (so it stays out of process listings).
   *
   * @throws IllegalArgumentException naming the file when it cannot be read or is empty
   */
  public static String readToken(Path file) {
    try {
      String token = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (token.isEmpty()) {
        throw new IllegalArgumentException("the service token file " + file + " is empty");
      }
      return token;
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the service token file " + file, e);
    }
  }

  /** Where a client reaches {@code host:port}: TLS when a CA is set. */
  public Location location(String host, int port) {
    return trustedCa == null ? Location.forGrpcInsecure(host, port)
        : Location.forGrpcTls(host, port);
  }

  /** {@code builder} trusting the CA, if one is set. */
  public FlightClient.Builder configure(FlightClient.Builder builder) {
    if (trustedCa != null) {
      try {
        builder.trustedCertificates(new ByteArrayInputStream(Files.readAllBytes(trustedCa)));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the TLS CA file " + trustedCa, e);
      }
    }
    return builder;
  }

  /**
   * The check a Metasrv server makes of every call's {@code authorization} header: the service
   * token, compared in constant time; null when no token is configured.
   */
  public java.util.function.Consumer<String> serverCheck() {
    if (token == null) {
      return null;
    }
    byte[] expected = Secrets.sha256(("Bearer " + token).getBytes(StandardCharsets.UTF_8));
    return header -> {
      byte[] given = Secrets.sha256(String.valueOf(header).getBytes(StandardCharsets.UTF_8));
      if (header == null || !MessageDigest.isEqual(expected, given)) {
        throw new AuthenticationException(header == null
            ? "Metasrv calls need the service token: no authorization header"
            : "the service token is not valid");
      }
    };
  }

  @Override
  public String toString() {
    return "ServiceCredentials[token=" + (token == null ? "none" : "***") + ", trustedCa="
        + trustedCa + "]";
  }
}
