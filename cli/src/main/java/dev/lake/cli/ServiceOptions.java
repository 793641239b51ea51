package dev.lake.cli;

import dev.lake.flight.auth.ServiceCredentials;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * How a process talks to (and, for {@code lake metasrv}, is talked to by) the Metasrv tier: the
 * shared service token and the CA of Metasrv's TLS certificate (see docs/security.md).
 */
final class ServiceOptions {

  @Option(names = "--service-token-file",
      description = "File holding the service token every Metasrv call carries (and Metasrv"
          + " requires); default none (loopback only).")
  Path serviceTokenFile;

  @Option(names = "--metasrv-tls-ca",
      description = "PEM CA of the Metasrv replicas' TLS certificates: call them over TLS.")
  Path metasrvTlsCa;

  /** @throws IllegalArgumentException naming a file that cannot be read */
  ServiceCredentials credentials() {
    return new ServiceCredentials(
        serviceTokenFile == null ? null : ServiceCredentials.readToken(serviceTokenFile),
        metasrvTlsCa);
  }
}
