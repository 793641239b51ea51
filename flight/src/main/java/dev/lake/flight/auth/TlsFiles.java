package dev.lake.flight.auth;

import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A server's TLS material, as PEM files: its certificate chain and private key (PKCS#8), and
 * optionally the CA whose certificates clients must present (mutual TLS; a client without one is
 * refused during the TLS handshake).
 *
 * @param clientCa null: client certificates are not asked for
 */
public record TlsFiles(Path certificate, Path privateKey, Path clientCa) {

  /** @throws IllegalArgumentException naming a file that does not exist */
  public TlsFiles {
    Objects.requireNonNull(certificate, "certificate");
    Objects.requireNonNull(privateKey, "privateKey");
    requireFile(certificate, "TLS certificate");
    requireFile(privateKey, "TLS private key");
    if (clientCa != null) {
      requireFile(clientCa, "TLS client CA");
    }
  }

  private static void requireFile(Path file, String what) {
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("the " + what + " file " + file + " does not exist");
    }
  }

  /** {@code options} serving TLS (HTTP/2 by ALPN, as gRPC needs) with these files. */
  public HttpServerOptions apply(HttpServerOptions options) {
    options.setSsl(true).setUseAlpn(true).setKeyCertOptions(new PemKeyCertOptions()
        .setCertPath(certificate.toString()).setKeyPath(privateKey.toString()));
    if (clientCa != null) {
      options.setTrustOptions(new PemTrustOptions().addCertPath(clientCa.toString()))
          .setClientAuth(ClientAuth.REQUIRED);
    }
    return options;
  }
}
