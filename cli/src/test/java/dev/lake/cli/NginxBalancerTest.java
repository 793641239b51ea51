package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.flight.auth.DevCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The configuration lake writes is one the installed nginx accepts ({@code nginx -t}). */
class NginxBalancerTest {

  private static final List<String> UPSTREAMS = List.of("127.0.0.1:40002", "127.0.0.1:40003");

  @TempDir Path run;

  @Test
  void writtenConfigurationPassesNginxOwnCheckWithoutRoot() throws Exception {
    String config = NginxBalancer.config(run, 40_001, UPSTREAMS, Optional.empty());
    assertTrue(config.contains("server 127.0.0.1:40002") && config.contains("server 127.0.0.1:40003"),
        config);
    assertTrue(config.contains("listen 127.0.0.1:40001 http2;"), config);
    assertTrue(config.contains("grpc_pass grpc://lake_query"), config);
    assertFalse(config.contains("ssl"), config);
    check(config);
  }

  @Test
  void tlsConfigurationTerminatesAndReEncryptsVerifyingTheReplicas() throws Exception {
    DevCertificates certificates = DevCertificates.generate(run.resolve("tls"), 1);
    String config = NginxBalancer.config(run, 40_001, UPSTREAMS, Optional.of(new NginxBalancer.Tls(
        certificates.serverCertificate(), certificates.serverKey(), certificates.caCertificate())));
    assertTrue(config.contains("listen 127.0.0.1:40001 ssl http2;"), config);
    assertTrue(config.contains("ssl_certificate " + certificates.serverCertificate() + ";"), config);
    assertTrue(config.contains("grpc_pass grpcs://lake_query"), config);
    assertTrue(config.contains("grpc_ssl_trusted_certificate " + certificates.caCertificate() + ";"),
        config);
    assertTrue(config.contains("grpc_ssl_verify on;"), config);
    check(config);
  }

  private void check(String config) throws Exception {
    Path nginx = NginxBalancer.binary().orElse(null);
    assertTrue(nginx != null, "nginx is required: apt-get install nginx (.ci/run installs it)");
    Files.createDirectories(run.resolve("logs"));
    Files.createDirectories(run.resolve("tmp"));
    Path conf = run.resolve("nginx.conf");
    Files.writeString(conf, config);
    Process check = new ProcessBuilder(nginx.toString(), "-t", "-p", run.toString(), "-e",
        run.resolve("logs/error.log").toString(), "-c", conf.toString())
        .redirectErrorStream(true).start();
    String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, check.waitFor(), output);
    assertTrue(output.contains("test is successful"), output);
  }
}
