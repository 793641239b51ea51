package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lake.flight.auth.Authenticator;
import dev.lake.flight.auth.Secrets;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lake dev --principals --lance-rest-port}: the Lance Namespace REST binding authenticates
 * {@code x-api-key} and {@code authorization: Bearer} tokens through the Flight principals file,
 * filters listings by namespace grants and refuses reads and writes outside grants and role,
 * changing nothing.
 */
class LanceRestAuthTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ADMIN = "admin-token-0123456789";
  private static final String WRITER = "writer-token-0123456789";
  private static final String READER = "reader-token-0123456789";

  @TempDir Path dir;
  private DevServer server;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void start() throws Exception {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode principals = root.putArray("principals");
    principal(principals, "root", "ADMIN", "*", ADMIN);
    principal(principals, "etl", "WRITER", "alpha", WRITER);
    principal(principals, "analyst", "READER", "alpha", READER);
    Path file = dir.resolve("principals.json");
    Files.writeString(file, root.toString());
    Authenticator authenticator = Authenticator.load(file);
    server = DevServer.start(dir.resolve("data"), "127.0.0.1", 0, QueryLimits.defaults(), null, 0,
        builder -> builder.authenticator(authenticator));
    for (String ns : List.of("alpha", "beta")) {
      assertEquals(201, as(ADMIN, "POST", "/v1/namespace/" + ns + "/create", "{}").status());
    }
    try (Connection sql = DriverManager.getConnection(server.jdbcUrl("127.0.0.1") + "&token=" + ADMIN);
        Statement st = sql.createStatement()) {
      createLanceTable(st, "lake.alpha.runs");
      createLanceTable(st, "lake.beta.secret");
    }
  }

  // The namespaces made through REST reach the SQL catalog cache at its next refresh.
  private static void createLanceTable(Statement st, String table) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      try {
        st.executeUpdate("CREATE TABLE " + table + " (id BIGINT) WITH (engine = 'lance')");
        return;
      } catch (SQLException notYet) {
        if (System.nanoTime() > deadline) {
          throw notYet;
        }
        Thread.sleep(100);
      }
    }
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void missingOrWrongCredentialsAnswer401AndChangeNothing() throws Exception {
    Answer none = send("POST", "/v1/table/alpha$sneaky/declare", "{}");
    assertError(401, 16, none);
    assertEquals("Bearer", none.header());
    assertError(401, 16, send("POST", "/v1/table/alpha$sneaky/declare", "{}", "x-api-key", "guess"));
    assertError(401, 16, send("POST", "/v1/namespace/gamma/create", "{}", "authorization", "Bearer guess"));
    assertError(401, 16, send("GET", "/v1/namespace/%24/list", null, "authorization", "Basic cm9vdDpwdw=="));
    assertError(401, 16, send("GET", "/v1/table", null, "authorization", "Bearer "));
    assertError(401, 16, send("GET", "/v1/no/such/route", null));
    assertEquals(List.of("alpha$runs", "beta$secret"), allTables(ADMIN));
    assertEquals(List.of("alpha", "beta", "demo"), namespaces(ADMIN));
  }

  @Test
  void apiKeyAndBearerTokensAreBothAccepted() throws Exception {
    Answer key = send("GET", "/v1/namespace/alpha/table/list", null, "x-api-key", READER);
    assertEquals(200, key.status(), key.toString());
    assertEquals(List.of("runs"), strings(key.json().get("tables")));
    Answer bearer = send("GET", "/v1/namespace/alpha/table/list", null,
        "authorization", "Bearer " + READER);
    assertEquals(200, bearer.status(), bearer.toString());
    assertEquals(List.of("runs"), strings(bearer.json().get("tables")));
    assertEquals(204, send("POST", "/v1/table/alpha$runs/exists", "{}", "authorization", "bearer " + WRITER).status());
  }

  @Test
  void listingsShowOnlyGrantedNamespaces() throws Exception {
    assertEquals(List.of("alpha"), namespaces(WRITER));
    assertEquals(List.of("alpha"), namespaces(READER));
    assertEquals(List.of("alpha$runs"), allTables(WRITER));
    assertEquals(List.of("alpha", "beta", "demo"), namespaces(ADMIN));
    assertEquals(List.of("alpha$runs", "beta$secret"), allTables(ADMIN));
  }

  @Test
  void ungrantedNamespacesAnswer403WhetherOrNotTheTableExists() throws Exception {
    assertError(403, 15, as(READER, "POST", "/v1/table/beta$secret/describe", "{}"));
    assertError(403, 15, as(READER, "POST", "/v1/table/beta$secret/exists", "{}"));
    assertError(403, 15, as(READER, "POST", "/v1/table/beta$missing/exists", "{}"));
    assertError(403, 15, as(READER, "GET", "/v1/table/beta$secret/count_rows", null));
    assertError(403, 15, as(WRITER, "GET", "/v1/namespace/beta/table/list", null));
    assertError(403, 15, as(WRITER, "POST", "/v1/namespace/beta/exists", "{}"));
    assertError(403, 15, as(WRITER, "POST", "/v1/namespace/beta/describe", "{}"));
  }

  @Test
  void writesOutsideRoleOrGrantsAnswer403AndChangeNothing() throws Exception {
    assertError(403, 15, as(READER, "POST", "/v1/table/alpha$new/declare", "{}"));
    assertError(403, 15, as(READER, "POST", "/v1/table/alpha$runs/drop", "{}"));
    assertError(403, 15, as(READER, "POST", "/v1/table/alpha$runs/deregister", "{}"));
    assertError(403, 15, as(WRITER, "POST", "/v1/table/beta$new/declare", "{}"));
    assertError(403, 15, as(WRITER, "POST", "/v1/table/beta$secret/drop", "{}"));
    assertError(403, 15, as(WRITER, "POST", "/v1/table/beta$secret/deregister", "{}"));
    assertError(403, 15, as(WRITER, "POST", "/v1/table/beta$other/register",
        "{\"location\": \"" + dir.resolve("data/warehouse/beta/other") + "\"}"));
    assertError(403, 15, as(WRITER, "POST", "/v1/table/alpha$runs/rename",
        "{\"new_table_name\": \"stolen\", \"new_namespace_id\": [\"beta\"]}"));
    assertError(403, 15, as(WRITER, "POST", "/v1/namespace/gamma/create", "{}"));
    assertError(403, 15, as(WRITER, "POST", "/v1/namespace/alpha/drop", "{\"behavior\": \"Cascade\"}"));
    assertEquals(List.of("alpha$runs", "beta$secret"), allTables(ADMIN));
    assertEquals(List.of("alpha", "beta", "demo"), namespaces(ADMIN));

    assertEquals(201, as(WRITER, "POST", "/v1/table/alpha$new/declare", "{}").status());
    assertEquals(200, as(WRITER, "POST", "/v1/table/alpha$new/drop", "{}").status());
    assertEquals(List.of("alpha$runs", "beta$secret"), allTables(ADMIN));
  }

  private static void principal(ArrayNode principals, String name, String role, String namespace,
      String token) {
    ObjectNode node = principals.addObject().put("name", name).put("tenant", "t").put("role", role);
    node.putArray("namespaces").add(namespace);
    node.putArray("token_sha256").add(Secrets.tokenHash(token));
  }

  private List<String> namespaces(String token) throws Exception {
    Answer answer = as(token, "GET", "/v1/namespace/%24/list", null);
    assertEquals(200, answer.status(), answer.toString());
    return strings(answer.json().get("namespaces"));
  }

  private List<String> allTables(String token) throws Exception {
    Answer answer = as(token, "GET", "/v1/table", null);
    assertEquals(200, answer.status(), answer.toString());
    return strings(answer.json().get("tables")).stream().sorted().toList();
  }

  private record Answer(int status, JsonNode json, String text, String header) {
    @Override
    public String toString() {
      return status + " " + text;
    }
  }

  private static void assertError(int status, int code, Answer answer) {
    assertEquals(status, answer.status(), answer.toString());
    assertEquals(code, answer.json().get("code").asInt(), answer.toString());
    assertTrue(answer.json().get("error").asText().length() > 0, answer.toString());
  }

  private static List<String> strings(JsonNode array) {
    List<String> list = new ArrayList<>();
    array.forEach(n -> list.add(n.asText()));
    return list;
  }

  private Answer as(String token, String method, String path, String body) throws Exception {
    return send(method, path, body, "x-api-key", token);
  }

  private Answer send(String method, String path, String body, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + server.lanceRestPort() + path.replace("$", "%24")))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    JsonNode json = response.body().isBlank() ? null : JSON.readTree(response.body());
    return new Answer(response.statusCode(), json, response.body(),
        response.headers().firstValue("www-authenticate").orElse(null));
  }
}
