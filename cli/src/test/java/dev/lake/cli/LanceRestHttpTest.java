package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP surface of {@code lake dev --lance-rest-port} as raw requests: identifiers (the
 * {@code $} delimiter, {@code ?delimiter=}, percent-encoding, the root), route/body mismatch,
 * methods, paging, parameters as query or {@code x-lance-*} headers, unsupported routes, hostile
 * bodies; and Lance tables made through Flight SQL seen through REST.
 */
class LanceRestHttpTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private DevServer server;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void start() throws Exception {
    server = DevServer.start(dir, "127.0.0.1", 0, QueryLimits.defaults(), null, 0);
    for (String ns : List.of("alpha", "beta", "gamma")) {
      assertEquals(201, post("/v1/namespace/" + ns + "/create", "{}").status());
    }
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void identifiersTakeTheDelimiterEncodingAndRootForms() throws Exception {
    assertEquals(204, post("/v1/namespace/alpha/exists", "{}").status());
    assertEquals(204, post("/v1/namespace/alpha/exists", "{\"id\": [\"alpha\"]}").status());
    Answer declared = post("/v1/table/alpha%24runs/declare", "{}");
    assertEquals(201, declared.status(), declared.toString());
    assertFalse(declared.json().get("managed_versioning").asBoolean());
    assertEquals(204, post("/v1/table/alpha$runs/exists", "{}").status());
    assertEquals(204, post("/v1/table/alpha.runs/exists?delimiter=.", "{}").status());
    assertEquals(204, send("POST", "/v1/table/alpha::runs/exists", "{}", "x-lance-delimiter", "::").status());
    assertEquals(List.of("alpha", "beta", "demo", "gamma"), strings(get("/v1/namespace/%24/list").json().get("namespaces")));
    assertEquals(List.of(), strings(get("/v1/namespace/alpha/list").json().get("namespaces")));
    assertEquals(204, post("/v1/namespace/%24/exists", "{}").status(), "the root namespace exists");
  }

  @Test
  void malformedIdentifiersAndMismatchesAreInvalidInputAndChangeNothing() throws Exception {
    assertError(400, 13, post("/v1/namespace/alpha/exists", "{\"id\": [\"beta\"]}"));
    assertError(400, 13, post("/v1/table/alpha$runs/declare", "{\"id\": [\"alpha\", \"other\"]}"));
    assertError(400, 13, post("/v1/table/alpha$$runs/declare", "{}"));
    assertError(400, 13, post("/v1/table/alpha$Runs-1/declare", "{}"));
    assertError(400, 13, post("/v1/table/alpha$runs/declare", "{\"id\": \"alpha$runs\"}"));
    assertError(400, 13, post("/v1/table/alpha$runs/declare", "[1, 2]"));
    assertError(400, 13, post("/v1/table/alpha$runs/declare", "{\"location\": \"/tmp/elsewhere\"}"));
    assertError(400, 13, post("/v1/table/alpha%24r%C3%A9s/declare", "{}"));
    assertError(400, 13, post("/v1/namespace/alpha/create", "{\"mode\": \"sometimes\"}"));
    assertError(400, 13, post("/v1/namespace/delta/create", "{\"properties\": {\"owner\": \"me\"}}"));
    assertError(400, 13, post("/v1/namespace/alpha/drop", "{\"behavior\": \"Eventually\"}"));
    assertError(400, 13, get("/v1/namespace/%24/list?limit=0"));
    assertError(400, 13, get("/v1/namespace/%24/list?limit=many"));
    assertError(400, 13, post("/v1/table/alpha$runs/describe?load_detailed_metadata=perhaps", "{}"));
    assertError(400, 13, send("GET", "/v1/table/alpha$runs/declare", null));
    assertError(400, 13, send("DELETE", "/v1/namespace/alpha/describe", null));
    assertError(413, 13, post("/v1/table/alpha$runs/declare", "{\"x\": \"" + "a".repeat(1 << 20) + "\"}"));
    assertError(404, 4, post("/v1/table/alpha$runs/exists", "{}"));
    assertError(404, 1, post("/v1/namespace/delta/exists", "{}"));
    assertEquals(List.of("alpha", "beta", "demo", "gamma"), strings(get("/v1/namespace/%24/list").json().get("namespaces")));
  }

  @Test
  void unservedRoutesAnswerUnsupported() throws Exception {
    for (String op : List.of("insert", "merge_insert", "query", "create", "version/list", "version/create",
        "create_index", "tags/list", "restore", "stats")) {
      assertError(501, 0, post("/v1/table/alpha$runs/" + op, "{}"));
    }
    assertError(501, 0, post("/v1/transaction/abc/describe", "{}"));
    assertError(404, 0, get("/v2/whatever"));
    assertError(404, 0, get("/v1/namespace/alpha/nothing"));
    Answer error = post("/v1/table/alpha$runs/query", "{}");
    assertEquals("/v1/table/alpha%24runs/query", error.json().get("instance").asText());
    assertEquals("Unsupported", error.json().get("detail").asText());
    assertError(501, 0, get("/v1/table/alpha$runs/count_rows?predicate=id%3E1"));
  }

  @Test
  void listingsArePagedAndDeclaredTablesListedOnlyWhenAsked() throws Exception {
    for (String t : List.of("a1", "a2", "a3")) {
      assertEquals(201, post("/v1/table/alpha$" + t + "/declare", "{}").status());
    }
    assertEquals(List.of(), strings(get("/v1/namespace/alpha/table/list").json().get("tables")));
    Answer first = get("/v1/namespace/alpha/table/list?include_declared=true&limit=2");
    assertEquals(List.of("a1", "a2"), strings(first.json().get("tables")));
    String token = first.json().get("page_token").asText();
    Answer second = send("GET", "/v1/namespace/alpha/table/list?limit=2", null,
        "x-lance-page-token", token, "x-lance-include-declared", "true");
    assertEquals(List.of("a3"), strings(second.json().get("tables")), second.toString());
    assertFalse(second.json().has("page_token"));
    Answer described = post("/v1/table/alpha$a1/describe", "{\"check_declared\": true}");
    assertTrue(described.json().get("is_only_declared").asBoolean(), described.toString());
    assertError(409, 3, post("/v1/namespace/alpha/drop", "{}"));
    assertEquals(200, post("/v1/table/alpha$a1/drop", "{}").status());
    assertEquals(200, post("/v1/namespace/alpha/drop", "{\"behavior\": \"Cascade\"}").status());
    assertError(404, 1, post("/v1/namespace/alpha/exists", "{}"));
    assertEquals(200, post("/v1/namespace/alpha/drop", "{\"mode\": \"Skip\"}").status());
    assertError(404, 1, post("/v1/namespace/alpha/drop", "{\"mode\": \"Fail\"}"));
  }

  @Test
  void lanceTablesMadeThroughFlightSqlAreListedDescribedAndCountedAndLogTablesAreNot() throws Exception {
    try (Connection sql = DriverManager.getConnection(server.jdbcUrl("127.0.0.1"));
        Statement st = sql.createStatement()) {
      // the namespace made through REST reaches the SQL catalog cache at its next refresh
      long deadline = System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
      while (true) {
        try {
          st.executeUpdate("CREATE TABLE lake.beta.trips (id BIGINT, robot VARCHAR) WITH (engine = 'lance')");
          break;
        } catch (java.sql.SQLException notYet) {
          if (System.nanoTime() > deadline) {
            throw notYet;
          }
          Thread.sleep(100);
        }
      }
      st.executeUpdate("INSERT INTO lake.beta.trips VALUES (1, 'a'), (2, 'b'), (3, 'c')");
      st.executeUpdate("CREATE TABLE lake.beta.notes (id BIGINT)");
    }
    assertEquals(List.of("trips"), strings(get("/v1/namespace/beta/table/list").json().get("tables")));
    assertEquals(List.of("beta$trips"), strings(get("/v1/table").json().get("tables")));
    assertEquals(List.of("beta.trips"), strings(get("/v1/table?delimiter=.").json().get("tables")));
    Answer described = post("/v1/table/beta$trips/describe", "{\"load_detailed_metadata\": true}");
    assertEquals(2, described.json().get("version").asInt(), described.toString());
    assertEquals("int64", described.json().at("/schema/fields/0/type/type").asText());
    assertEquals(3, get("/v1/table/beta$trips/count_rows").json().asLong());
    assertEquals(3, post("/v1/table/beta$trips/count_rows", "{}").json().asLong());
    assertEquals(0, get("/v1/table/beta$trips/count_rows?version=1").json().asLong());
    assertError(404, 11, get("/v1/table/beta$trips/count_rows?version=9"));
    Answer log = post("/v1/table/beta$notes/describe", "{}");
    assertError(409, 19, log);
    assertTrue(log.json().get("error").asText().contains("log table"), log.toString());
    assertError(409, 5, post("/v1/table/beta$notes/declare", "{}"));
    assertError(409, 19, post("/v1/table/beta$notes/drop", "{}"));
    assertError(409, 19, post("/v1/namespace/beta/drop", "{\"behavior\": \"Cascade\"}"));
    assertEquals(204, post("/v1/table/beta$trips/exists", "{}").status(), "nothing was dropped");
    Answer described2 = post("/v1/table/beta$trips/describe", "{}");
    assertFalse(described2.json().has("version"), "a plain describe opens no dataset: " + described2);
    Path location = Path.of(URI.create(described2.json().get("location").asText()));
    assertTrue(Files.isDirectory(location.resolve("_versions")));
  }

  // ---- helpers ----

  private record Answer(int status, JsonNode json, String text) {
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

  private Answer get(String path) throws Exception {
    return send("GET", path, null);
  }

  private Answer post(String path, String body) throws Exception {
    return send("POST", path, body);
  }

  private Answer send(String method, String path, String body, String... headers) throws Exception {
    String encoded = path.replace("$", "%24").replace("::", "%3A%3A");
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.lanceRestPort() + encoded))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    JsonNode json = response.body().isBlank() ? null : JSON.readTree(response.body());
    return new Answer(response.statusCode(), json, response.body());
  }
}
