package dev.lake.cli;

import dev.lake.flight.LakeFlightServer;
import dev.lake.flight.auth.Authenticator;
import dev.lake.flight.auth.ListenerPolicy;
import dev.lake.flight.auth.TlsFiles;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The security options of a Flight SQL server command (see docs/security.md). Without them the
 * server listens on loopback only, plaintext, and every caller is anonymous.
 */
final class SecurityOptions {

  @Option(names = "--principals",
      description = "Principals file (JSON: token hashes, password hashes, roles, namespace"
          + " grants); every call must then authenticate. See docs/security.md. (lake query,"
          + " lake dev; lake metasrv: its Lance Namespace REST only.)")
  Path principals;

  @Option(names = "--tls-cert", description = "PEM certificate chain: serve TLS only.")
  Path tlsCert;

  @Option(names = "--tls-key", description = "PEM (PKCS#8) private key of --tls-cert.")
  Path tlsKey;

  @Option(names = "--tls-client-ca",
      description = "PEM CA: require client certificates it signed (mutual TLS).")
  Path tlsClientCa;

  /** Refuses incomplete combinations as picocli reports a bad option. */
  void check(CommandLine commandLine) {
    if ((tlsCert == null) != (tlsKey == null)) {
      throw new CommandLine.ParameterException(commandLine,
          "--tls-cert and --tls-key go together");
    }
    if (tlsClientCa != null && tlsCert == null) {
      throw new CommandLine.ParameterException(commandLine,
          "--tls-client-ca needs --tls-cert and --tls-key");
    }
  }

  /**
   * @throws IllegalStateException if {@code host} is not loopback and principals or TLS are
   *     missing
   */
  void checkListener(String host) {
    ListenerPolicy.check(host, principals != null, tls());
  }

  /** The TLS files asked for, or null for plaintext. */
  TlsFiles tlsFiles() {
    return tlsCert == null ? null : new TlsFiles(tlsCert, tlsKey, tlsClientCa);
  }

  boolean tls() {
    return tlsCert != null;
  }

  /**
   * Configures {@code builder}.
   *
   * @throws IllegalArgumentException naming the file that is missing or malformed
   */
  LakeFlightServer.Builder apply(LakeFlightServer.Builder builder) {
    if (principals != null) {
      builder.authenticator(Authenticator.load(principals));
    }
    builder.tls(tlsFiles());
    return builder;
  }

  /** The JDBC URL of a server on {@code host:port} with these options. */
  String jdbcUrl(String host, int port) {
    return "jdbc:arrow-flight-sql://" + host + ":" + port + "/?useEncryption=" + tls()
        + (tls() ? "&tlsRootCerts=<CA file>" : "") + (principals != null ? "&token=<token>" : "");
  }
}
