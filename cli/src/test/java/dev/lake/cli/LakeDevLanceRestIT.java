package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lake dev --lance-rest-port 0}: prints where the Lance Namespace REST API is, and serves it. */
class LakeDevLanceRestIT {

  private static final Pattern REST = Pattern.compile("lake dev: Lance Namespace REST on (http://127\\.0\\.0\\.1:(\\d+))$");

  @TempDir Path dir;

  @Test
  void lakeDevPrintsTheLanceRestAddressAndServesIt() throws Exception {
    try (LakeProcess lake = LakeProcess.listening("dev", "--port", "0", "--lance-rest-port", "0",
        "--data-dir", dir.toString())) {
      Matcher line = lake.awaitLine(REST);
      assertTrue(Integer.parseInt(line.group(2)) > 0, line.group());
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(line.group(1) + "/v1/namespace/robots/create"))
          .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(201, created.statusCode(), created.body());
      HttpResponse<String> listed = http.send(HttpRequest.newBuilder(URI.create(line.group(1) + "/v1/namespace/%24/list"))
          .GET().build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, listed.statusCode());
      assertEquals("{\"namespaces\":[\"demo\",\"robots\"]}", listed.body());
      assertEquals(143, lake.terminate(), "exit status of a JVM stopped by SIGTERM");
      assertTrue(lake.output().contains("lake dev: stopping"), String.join("\n", lake.output()));
    }
  }
}
