package dev.lake.flight.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed CA and certificates it signs (EC P-256, PEM), made with the machine's {@code
 * openssl}: for {@code lake cluster --secure} and tests, never for production, where certificates
 * come from the operator's own CA.
 *
 * @param caCertificate what clients trust ({@code tlsRootCerts}, {@code --tls-ca})
 * @param serverCertificate valid for {@code localhost} and {@code 127.0.0.1}
 * @param clientCertificate a client certificate for mutual TLS, {@code CN=<client name>}
 */
public record DevCertificates(Path caCertificate, Path caKey, Path serverCertificate,
    Path serverKey, Path clientCertificate, Path clientKey) {

  /**
   * Writes a CA, a server certificate and a client certificate into {@code directory}.
   *
   * @throws IOException if openssl is missing or fails (its output is in the message)
   */
  public static DevCertificates generate(Path directory, int days) throws IOException {
    Files.createDirectories(directory);
    Path caKey = directory.resolve("ca.key");
    Path ca = directory.resolve("ca.pem");
    openssl(directory, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
        "-nodes", "-keyout", caKey.toString(), "-out", ca.toString(), "-days",
        String.valueOf(days), "-subj", "/CN=lake dev CA",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign");
    Path serverKey = directory.resolve("server.key");
    Path server = directory.resolve("server.pem");
    sign(directory, ca, caKey, serverKey, server, "/CN=localhost", days,
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
    Path clientKey = directory.resolve("client.key");
    Path client = directory.resolve("client.pem");
    sign(directory, ca, caKey, clientKey, client, "/CN=lake-client", days,
        "extendedKeyUsage=clientAuth\n");
    return new DevCertificates(ca, caKey, server, serverKey, client, clientKey);
  }

  private static void sign(Path directory, Path ca, Path caKey, Path key, Path certificate,
      String subject, int days, String extensions) throws IOException {
    Path request = Files.createTempFile(directory, "request", ".csr");
    Path ext = Files.createTempFile(directory, "ext", ".cnf");
    try {
      Files.writeString(ext, extensions, StandardCharsets.UTF_8);
      openssl(directory, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
          "-nodes", "-keyout", key.toString(), "-out", request.toString(), "-subj", subject);
      openssl(directory, "x509", "-req", "-in", request.toString(), "-CA", ca.toString(),
          "-CAkey", caKey.toString(), "-CAcreateserial", "-out", certificate.toString(), "-days",
          String.valueOf(days), "-extfile", ext.toString());
    } finally {
      Files.deleteIfExists(request);
      Files.deleteIfExists(ext);
    }
  }

  private static void openssl(Path directory, String... arguments) throws IOException {
    List<String> command = new ArrayList<>();
    command.add("openssl");
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).directory(directory.toFile())
        .redirectErrorStream(true).start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("openssl " + arguments[0] + " did not finish within 60 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IOException("interrupted while running openssl", e);
    }
    if (process.exitValue() != 0) {
      throw new IOException("openssl " + arguments[0] + " failed (exit " + process.exitValue()
          + "): " + output.strip());
    }
  }
}
