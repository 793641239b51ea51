package dev.lake.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lake.engine.TableLocation;
import java.io.IOException;
import java.net.URI;
import java.util.UUID;

/**
 * The persisted state of a drop, under {@code drop/<ns>/<name>}: which incarnation is being
 * dropped and where its files are. Written before the registry record is deleted and removed after
 * the files are, so a drop interrupted at any step is finished (or, if the registry record was
 * never deleted, rolled back) by the next {@link Catalog#open}.
 */
record DropTombstone(TableIdent ident, UUID incarnation, String engine, TableLocation location) {

  static final String PREFIX = "drop/";
  private static final ObjectMapper JSON = new ObjectMapper();

  static String key(TableIdent ident) {
    return PREFIX + ident.namespace() + "/" + ident.name();
  }

  static DropTombstone of(TableEntry entry) {
    return new DropTombstone(entry.ident(), entry.incarnation(), entry.engine(), entry.location());
  }

  byte[] encode() {
    ObjectNode node = JSON.createObjectNode();
    node.put("format", 1);
    node.put("ns", ident.namespace());
    node.put("name", ident.name());
    node.put("incarnation", incarnation.toString());
    node.put("engine", engine);
    node.put("location", location.uri().toString());
    try {
      return JSON.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new CatalogException("cannot encode the drop tombstone of " + ident, e);
    }
  }

  static DropTombstone decode(String key, byte[] bytes) {
    try {
      JsonNode node = JSON.readTree(bytes);
      if (node.path("format").asInt() != 1) {
        throw new CatalogException("drop tombstone " + key + " has unknown format " + node.path("format"));
      }
      return new DropTombstone(TableIdent.of(node.get("ns").asText(), node.get("name").asText()),
          UUID.fromString(node.get("incarnation").asText()), node.get("engine").asText(),
          new TableLocation(URI.create(node.get("location").asText())));
    } catch (IOException | RuntimeException e) {
      if (e instanceof CatalogException c) {
        throw c;
      }
      throw new CatalogException("drop tombstone " + key + " is unreadable: " + e.getMessage(), e);
    }
  }
}
