package dev.lake.flight.lancerest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Decoding Lance Namespace requests: identifiers, delimiters, parameters, and their refusals. */
class RestCallTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static RestCall call(String rawId, Map<String, String> query, Map<String, String> headers, String body)
      throws Exception {
    JsonNode json = body == null ? null : JSON.readTree(body);
    return RestCall.of("/v1/x", rawId, query, headers, json);
  }

  @Test
  void identifiersSplitOnTheDelimiterAfterPercentDecoding() throws Exception {
    assertEquals(List.of("a", "b"), call("a%24b", Map.of(), Map.of(), null).id());
    assertEquals(List.of("a", "b"), call("a$b", Map.of(), Map.of(), null).id());
    assertEquals(List.of(), call("%24", Map.of(), Map.of(), null).id());
    assertEquals(List.of(), call("$", Map.of(), Map.of(), null).id());
    assertEquals(List.of("a", "b"), call("$a$b", Map.of(), Map.of(), null).id());
    assertEquals(List.of("a", "b$c"), call("a.b$c", Map.of("delimiter", "."), Map.of(), null).id());
    assertEquals(List.of("a", "b"), call("a::b", Map.of(), Map.of("x-lance-delimiter", "::"), null).id());
    assertEquals(List.of("a+b"), call("a+b", Map.of(), Map.of(), null).id(), "'+' in a path is a plus");
    assertEquals(List.of("a", "b"), call("a$b", Map.of(), Map.of(), "{\"id\": [\"a\", \"b\"]}").id());
  }

  @Test
  void malformedIdentifiersAreBadRequests() {
    assertThrows(RestError.BadRequest.class, () -> call("a$$b", Map.of(), Map.of(), null));
    assertThrows(RestError.BadRequest.class, () -> call("a$", Map.of(), Map.of(), null));
    assertThrows(RestError.BadRequest.class, () -> call("a$b", Map.of("delimiter", ""), Map.of(), null));
    assertThrows(RestError.BadRequest.class, () -> call("a%2", Map.of(), Map.of(), null));
    assertThrows(RestError.BadRequest.class, () -> call("a$b", Map.of(), Map.of(), "{\"id\": [\"a\", \"c\"]}"));
    assertThrows(RestError.BadRequest.class, () -> call("a$b", Map.of(), Map.of(), "{\"id\": \"a$b\"}"));
    assertThrows(RestError.BadRequest.class, () -> call("a$b", Map.of(), Map.of(), "{\"id\": [1, 2]}"));
    assertThrows(RestError.BadRequest.class, () -> call("a", Map.of(), Map.of(), "[]"));
  }

  @Test
  void parametersComeFromTheQueryThenHeadersThenTheBody() throws Exception {
    RestCall c = call("a", Map.of("limit", "5"), Map.of("x-lance-page-token", "t1", "x-lance-limit", "9"),
        "{\"limit\": 7, \"include_declared\": true, \"mode\": \"Exist_Ok\", \"properties\": {\"k\": \"v\"}}");
    assertEquals(OptionalLong.of(5), c.number("limit"));
    assertEquals("t1", c.string("page_token").orElseThrow());
    assertTrue(c.flag("include_declared"));
    assertFalse(c.flag("check_declared"));
    assertEquals("existok", c.mode("mode").orElseThrow());
    assertEquals(Map.of("k", "v"), c.stringMap("properties"));
    RestCall bad = call("a", Map.of("limit", "x", "check_declared", "yes"), Map.of(), "{\"version\": {\"n\": 1}}");
    assertThrows(RestError.BadRequest.class, () -> bad.number("limit"));
    assertThrows(RestError.BadRequest.class, () -> bad.flag("check_declared"));
    assertThrows(RestError.BadRequest.class, () -> bad.number("version"));
  }

  @Test
  void schemasTakeLanceJsonArrowForm() {
    Field item = Field.nullable("item", new ArrowType.FloatingPoint(org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE));
    Schema schema = new Schema(List.of(
        Field.notNullable("id", new ArrowType.Int(64, true)),
        new Field("embedding", FieldType.nullable(new ArrowType.FixedSizeList(3)), List.of(item)),
        new Field("meta", FieldType.nullable(ArrowType.Struct.INSTANCE),
            List.of(Field.nullable("ok", ArrowType.Bool.INSTANCE), Field.nullable("n", new ArrowType.Int(16, false))))));
    JsonNode json = JsonArrowSchemas.toJson(schema);
    assertEquals("int64", json.at("/fields/0/type/type").asText());
    assertFalse(json.at("/fields/0/nullable").asBoolean());
    assertEquals("fixed_size_list", json.at("/fields/1/type/type").asText());
    assertEquals(3, json.at("/fields/1/type/length").asInt());
    assertEquals("float32", json.at("/fields/1/type/fields/0/type/type").asText());
    assertEquals("struct", json.at("/fields/2/type/type").asText());
    assertEquals("bool", json.at("/fields/2/type/fields/0/type/type").asText());
    assertEquals("uint16", json.at("/fields/2/type/fields/1/type/type").asText());
  }
}
