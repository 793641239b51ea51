package dev.lake.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.UUID;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Encodes registry records as small JSON documents. Keys: {@code tbl/<ns>/<name>} per table,
 * {@code ns/<ns>} per namespace created as such (an empty SQL schema exists only by its record;
 * a namespace that only holds tables, as ingest makes them, has none),
 * {@code gen/directory} for the directory generation that moves on every create and drop.
 */
final class RegistryCodec {

  static final String TABLE_PREFIX = "tbl/";
  static final String NAMESPACE_PREFIX = "ns/";
  static final String DIRECTORY_GENERATION = "gen/directory";
  private static final int FORMAT = 1;

  private static final ObjectMapper JSON = new ObjectMapper();

  private RegistryCodec() {}

  static String tableKey(TableIdent ident) {
    return TABLE_PREFIX + ident.namespace() + "/" + ident.name();
  }

  static String namespacePrefix(String namespace) {
    return TABLE_PREFIX + namespace + "/";
  }

  static String namespaceKey(String namespace) {
    return NAMESPACE_PREFIX + namespace;
  }

  static byte[] encodeNamespace(String namespace, Instant createdAt) {
    ObjectNode node = JSON.createObjectNode();
    node.put("format", FORMAT);
    node.put("namespace", namespace);
    node.put("createdAt", createdAt.toString());
    try {
      return JSON.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new CatalogException("cannot encode the namespace record of " + namespace, e);
    }
  }

  static byte[] encode(TableEntry entry) {
    ObjectNode node = JSON.createObjectNode();
    node.put("format", FORMAT);
    node.put("namespace", entry.ident().namespace());
    node.put("name", entry.ident().name());
    node.put("incarnation", entry.incarnation().toString());
    node.put("engine", entry.engine());
    node.put("location", entry.location().uri().toString());
    node.put("version", entry.version().number());
    node.put("createdAt", entry.createdAt().toString());
    try {
      node.set("schema", JSON.readTree(entry.schema().toJson()));
      return JSON.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new CatalogException("cannot encode the registry record of " + entry.ident(), e);
    }
  }

  static TableEntry decode(String key, byte[] bytes) {
    try {
      JsonNode node = JSON.readTree(bytes);
      if (node.path("format").asInt() != FORMAT) {
        throw new CatalogException("registry record " + key + " has unknown format "
            + node.path("format"));
      }
      return new TableEntry(
          TableIdent.of(node.get("namespace").asText(), node.get("name").asText()),
          UUID.fromString(node.get("incarnation").asText()),
          node.get("engine").asText(),
          new TableLocation(URI.create(node.get("location").asText())),
          Version.of(node.get("version").asLong()),
          Schema.fromJSON(JSON.writeValueAsString(node.get("schema"))),
          Instant.parse(node.get("createdAt").asText()));
    } catch (IOException | RuntimeException e) {
      if (e instanceof CatalogException c) {
        throw c;
      }
      throw new CatalogException("registry record " + key + " is unreadable: " + e.getMessage(), e);
    }
  }
}
