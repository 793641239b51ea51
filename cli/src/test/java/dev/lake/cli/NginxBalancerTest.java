package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The configuration lake writes is one the installed nginx accepts ({@code nginx -t}). */
class NginxBalancerTest {

  @TempDir Path run;

  @Test
  void writtenConfigurationPassesNginxOwnCheckWithoutRoot() throws Exception {
    Path nginx = NginxBalancer.binary().orElse(null);
    assertTrue(nginx != null, "nginx is required: apt-get install nginx (.ci/run installs it)");
    String config = NginxBalancer.config(run, 40_001, List.of("127.0.0.1:40002", "127.0.0.1:40003"));
    assertTrue(config.contains("server 127.0.0.1:40002") && config.contains("server 127.0.0.1:40003"),
        config);
    assertTrue(config.contains("grpc_pass grpc://lake_query"), config);
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
