package dev.lake.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.UUID;

/**
 * The persisted state of a rename, under {@code ren/<ns>/<name>} of the old name: written before
 * the new record is created and removed after the old one is deleted, so a rename interrupted
 * between the two is finished (both names held by the incarnation: the old one is removed) or
 * rolled back (the new one was never written) by the next {@link Catalog#open}, and two names never
 * stay on the same files.
 */
record RenameIntent(TableIdent from, TableIdent to, UUID incarnation) {

  static final String PREFIX = "ren/";
  private static final ObjectMapper JSON = new ObjectMapper();

  static String key(TableIdent from) {
    return PREFIX + from.namespace() + "/" + from.name();
  }

  byte[] encode() {
    ObjectNode node = JSON.createObjectNode();
    node.put("format", 1);
    node.put("fromNs", from.namespace());
    node.put("fromName", from.name());
    node.put("toNs", to.namespace());
    node.put("toName", to.name());
    node.put("incarnation", incarnation.toString());
    try {
      return JSON.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new CatalogException("cannot encode the rename of " + from, e);
    }
  }

  static RenameIntent decode(String key, byte[] bytes) {
    try {
      JsonNode node = JSON.readTree(bytes);
      if (node.path("format").asInt() != 1) {
        throw new CatalogException("rename record " + key + " has unknown format " + node.path("format"));
      }
      return new RenameIntent(TableIdent.of(node.get("fromNs").asText(), node.get("fromName").asText()),
          TableIdent.of(node.get("toNs").asText(), node.get("toName").asText()),
          UUID.fromString(node.get("incarnation").asText()));
    } catch (IOException | RuntimeException e) {
      if (e instanceof CatalogException c) {
        throw c;
      }
      throw new CatalogException("rename record " + key + " is unreadable: " + e.getMessage(), e);
    }
  }
}
