package dev.lake.flight.lancerest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * One decoded request: the object identifier from the route, the parameters (query string, then
 * {@code x-lance-<name>} headers, then the JSON body, first found wins) and the body. Built on the
 * event loop from data already read; holds no reference to the connection.
 */
final class RestCall {

  static final String DEFAULT_DELIMITER = "$";

  private final String path;
  private final List<String> id;
  private final Map<String, String> query;
  private final Map<String, String> headers;
  private final JsonNode body;

  private RestCall(String path, List<String> id, Map<String, String> query,
      Map<String, String> headers, JsonNode body) {
    this.path = path;
    this.id = id;
    this.query = query;
    this.headers = headers;
    this.body = body;
  }

  /**
   * @param rawId the route's identifier segment, still percent-encoded (or null for routes
   *     without one)
   * @param query decoded query parameters
   * @param lanceHeaders {@code x-lance-*} headers, names lower case
   * @throws RestError.BadRequest if the identifier is malformed or disagrees with the body's
   */
  static RestCall of(String path, String rawId, Map<String, String> query,
      Map<String, String> lanceHeaders, JsonNode body) {
    Map<String, String> q = new TreeMap<>(query);
    Map<String, String> h = new TreeMap<>(lanceHeaders);
    JsonNode json = body == null ? JsonNodeFactory.instance.objectNode() : body;
    if (!json.isObject()) {
      throw new RestError.BadRequest("the request body must be a JSON object");
    }
    RestCall draft = new RestCall(path, List.of(), q, h, json);
    List<String> id = List.of();
    if (rawId != null) {
      String delimiter = draft.string("delimiter").orElse(DEFAULT_DELIMITER);
      if (delimiter.isEmpty()) {
        throw new RestError.BadRequest("the delimiter must not be empty");
      }
      id = split(decode(rawId), delimiter);
      JsonNode bodyId = json.get("id");
      if (bodyId != null && !bodyId.isNull() && !parts(bodyId).equals(id)) {
        throw new RestError.BadRequest("the identifier in the route " + id
            + " differs from the one in the body " + parts(bodyId));
      }
    }
    return new RestCall(path, id, q, h, json);
  }

  String path() {
    return path;
  }

  List<String> id() {
    return id;
  }

  JsonNode body() {
    return body;
  }

  Optional<String> string(String name) {
    String value = query.get(name);
    if (value == null) {
      value = headers.get("x-lance-" + name);
    }
    if (value == null) {
      value = headers.get("x-lance-" + name.replace('_', '-'));
    }
    if (value != null) {
      return Optional.of(value);
    }
    JsonNode node = body.get(name);
    if (node == null || node.isNull()) {
      return Optional.empty();
    }
    if (!node.isValueNode()) {
      throw new RestError.BadRequest("parameter " + name + " must be a single value, got " + node);
    }
    return Optional.of(node.asText());
  }

  boolean flag(String name) {
    Optional<String> value = string(name);
    if (value.isEmpty()) {
      return false;
    }
    return switch (value.get().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new RestError.BadRequest("parameter " + name + " must be true or false, got "
          + value.get());
    };
  }

  OptionalLong number(String name) {
    Optional<String> value = string(name);
    if (value.isEmpty()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(value.get()));
    } catch (NumberFormatException e) {
      throw new RestError.BadRequest("parameter " + name + " must be an integer, got " + value.get());
    }
  }

  /** A mode-like parameter: case and underscores are ignored ({@code ExistOk}, {@code exist_ok}). */
  Optional<String> mode(String name) {
    return string(name).map(v -> v.replace("_", "").toLowerCase(Locale.ROOT));
  }

  Map<String, String> stringMap(String name) {
    JsonNode node = body.get(name);
    if (node == null || node.isNull()) {
      return Map.of();
    }
    if (!node.isObject()) {
      throw new RestError.BadRequest(name + " must be an object of strings");
    }
    Map<String, String> map = new TreeMap<>();
    node.properties().forEach(e -> map.put(e.getKey(), e.getValue().asText()));
    return map;
  }

  Optional<List<String>> parts(String name) {
    JsonNode node = body.get(name);
    return node == null || node.isNull() ? Optional.empty() : Optional.of(parts(node));
  }

  private static List<String> parts(JsonNode node) {
    if (!node.isArray()) {
      throw new RestError.BadRequest("an identifier must be an array of strings, got " + node);
    }
    List<String> parts = new ArrayList<>();
    for (JsonNode part : node) {
      if (!part.isTextual()) {
        throw new RestError.BadRequest("an identifier must be an array of strings, got " + node);
      }
      parts.add(part.asText());
    }
    return List.copyOf(parts);
  }

  private static String decode(String raw) {
    try {
      // a path segment: '+' is a plus sign, not a space
      return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new RestError.BadRequest("the identifier " + raw + " is not valid percent-encoding");
    }
  }

  static List<String> split(String id, String delimiter) {
    if (id.isEmpty() || id.equals(delimiter)) {
      return List.of();
    }
    String rest = id.startsWith(delimiter) ? id.substring(delimiter.length()) : id;
    List<String> parts = new ArrayList<>();
    int from = 0;
    while (true) {
      int at = rest.indexOf(delimiter, from);
      String part = at < 0 ? rest.substring(from) : rest.substring(from, at);
      if (part.isEmpty()) {
        throw new RestError.BadRequest("the identifier " + id + " has an empty part");
      }
      parts.add(part);
      if (at < 0) {
        return List.copyOf(parts);
      }
      from = at + delimiter.length();
    }
  }
}
