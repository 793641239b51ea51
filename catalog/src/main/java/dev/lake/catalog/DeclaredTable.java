package dev.lake.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lake.engine.TableLocation;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A table name reserved with a location but no data yet, under {@code decl/<ns>/<name>}: what a
 * Lance Namespace {@code DeclareTable} makes before a stock Lance writer creates the dataset at
 * the location. The name is taken (no other table may use it) but the table is not in the
 * directory: it is registered, with its incarnation kept, once a dataset of {@code engine} is
 * found at the location ({@link Catalog#adopt}).
 */
public record DeclaredTable(TableIdent ident, UUID incarnation, String engine,
    TableLocation location, Instant declaredAt) {

  static final String PREFIX = "decl/";
  private static final ObjectMapper JSON = new ObjectMapper();

  public DeclaredTable {
    Objects.requireNonNull(ident, "ident");
    Objects.requireNonNull(incarnation, "incarnation");
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(declaredAt, "declaredAt");
  }

  static String key(TableIdent ident) {
    return PREFIX + ident.namespace() + "/" + ident.name();
  }

  static String namespacePrefix(String namespace) {
    return PREFIX + namespace + "/";
  }

  byte[] encode() {
    ObjectNode node = JSON.createObjectNode();
    node.put("format", 1);
    node.put("ns", ident.namespace());
    node.put("name", ident.name());
    node.put("incarnation", incarnation.toString());
    node.put("engine", engine);
    node.put("location", location.uri().toString());
    node.put("declaredAt", declaredAt.toString());
    try {
      return JSON.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new CatalogException("cannot encode the declared table " + ident, e);
    }
  }

  static DeclaredTable decode(String key, byte[] bytes) {
    try {
      JsonNode node = JSON.readTree(bytes);
      if (node.path("format").asInt() != 1) {
        throw new CatalogException("declared table record " + key + " has unknown format " + node.path("format"));
      }
      return new DeclaredTable(TableIdent.of(node.get("ns").asText(), node.get("name").asText()),
          UUID.fromString(node.get("incarnation").asText()), node.get("engine").asText(),
          new TableLocation(URI.create(node.get("location").asText())),
          Instant.parse(node.get("declaredAt").asText()));
    } catch (IOException | RuntimeException e) {
      if (e instanceof CatalogException c) {
        throw c;
      }
      throw new CatalogException("declared table record " + key + " is unreadable: " + e.getMessage(), e);
    }
  }
}
