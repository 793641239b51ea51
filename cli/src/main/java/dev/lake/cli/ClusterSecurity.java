package dev.lake.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lake.flight.auth.DevCertificates;
import dev.lake.flight.auth.Secrets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;

/**
 * What {@code lake cluster --secure} generates under {@code <data-dir>/secure}: a self-signed CA
 * and a certificate for 127.0.0.1/localhost, a principals file with an admin token (ADMIN of
 * everything) and one tenant token (WRITER of namespace {@value #TENANT_NAMESPACE} only), and the
 * service token Query and Metasrv share. Secrets are files readable by the owner only.
 */
record ClusterSecurity(DevCertificates certificates, Path principals, Path serviceToken,
    String adminToken, String tenantToken) {

  static final String TENANT_NAMESPACE = "tenant_a";

  static ClusterSecurity generate(Path data) throws IOException {
    Path directory = Files.createDirectories(data.resolve("secure"));
    DevCertificates certificates = DevCertificates.generate(directory.resolve("tls"), 365);
    String admin = Secrets.newToken();
    String tenant = Secrets.newToken();
    ObjectMapper json = new ObjectMapper();
    ObjectNode root = json.createObjectNode();
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    root.put("handshake_secret", Base64.getEncoder().encodeToString(secret));
    ArrayNode principals = root.putArray("principals");
    principal(principals, "admin", "ops", "ADMIN", "*", admin);
    principal(principals, "tenant", "tenant-a", "WRITER", TENANT_NAMESPACE, tenant);
    Path principalsFile = directory.resolve("principals.json");
    writePrivate(principalsFile, json.writerWithDefaultPrettyPrinter().writeValueAsString(root));
    Path service = directory.resolve("service.token");
    writePrivate(service, Secrets.newToken() + "\n");
    return new ClusterSecurity(certificates, principalsFile, service, admin, tenant);
  }

  private static void principal(ArrayNode principals, String name, String tenant, String role,
      String namespace, String token) {
    ObjectNode node = principals.addObject().put("name", name).put("tenant", tenant)
        .put("role", role);
    node.putArray("namespaces").add(namespace);
    node.putArray("token_sha256").add(Secrets.tokenHash(token));
  }

  static void writePrivate(Path file, String text) throws IOException {
    Files.deleteIfExists(file);
    Files.createFile(file, PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }

  /** The options of a {@code lake metasrv} member. */
  List<String> metasrvArguments() {
    return List.of("--service-token-file", serviceToken.toString(),
        "--tls-cert", certificates.serverCertificate().toString(),
        "--tls-key", certificates.serverKey().toString(),
        "--metasrv-tls-ca", certificates.caCertificate().toString());
  }

  /** The options of a {@code lake query} member. */
  List<String> queryArguments() {
    return List.of("--principals", principals.toString(),
        "--service-token-file", serviceToken.toString(),
        "--metasrv-tls-ca", certificates.caCertificate().toString(),
        "--tls-cert", certificates.serverCertificate().toString(),
        "--tls-key", certificates.serverKey().toString());
  }

  /** nginx serves the cluster's certificate and checks the replicas' against the CA. */
  NginxBalancer.Tls balancerTls() {
    return new NginxBalancer.Tls(certificates.serverCertificate(), certificates.serverKey(),
        certificates.caCertificate());
  }

  /** The cluster.json fields: {@code tls_ca} and {@code tokens}. */
  void describe(ObjectNode root) {
    root.put("tls_ca", certificates.caCertificate().toString());
    root.putObject("tokens").put("admin", adminToken).put("tenant", tenantToken);
  }
}
