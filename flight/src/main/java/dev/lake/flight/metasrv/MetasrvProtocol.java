package dev.lake.flight.metasrv;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lake.catalog.RegistrySnapshot;
import dev.lake.catalog.TableEntry;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Metasrv wire format: action names, and the small JSON documents that are action bodies,
 * action results, the {@code DoPut} descriptor command and its {@code PutResult} metadata. A
 * table record travels with its schema as Arrow's schema JSON. Every decoder refuses a malformed
 * document with {@link BadRequestException} ({@code INVALID_ARGUMENT}).
 */
final class MetasrvProtocol {

  static final String ENGINES = "engines";
  static final String SNAPSHOT = "snapshot";
  static final String LOOKUP = "lookup";
  static final String CREATE_NAMESPACE = "create_namespace";
  static final String DROP_NAMESPACE = "drop_namespace";
  static final String CREATE_TABLE = "create_table";
  static final String DROP_TABLE = "drop_table";
  static final String REPLACE_WITH_EMPTY = "replace_with_empty";
  static final List<String> ACTIONS = List.of(ENGINES, SNAPSHOT, LOOKUP, CREATE_NAMESPACE,
      DROP_NAMESPACE, CREATE_TABLE, DROP_TABLE, REPLACE_WITH_EMPTY);

  /** What a {@code DoPut} stream writes. */
  enum PutKind { APPEND, CREATE_WITH, REPLACE }

  /** The header marking a call one replica forwarded to the leader: never forwarded again. */
  static final String FORWARDED_HEADER = "lake-metasrv-forwarded";

  private static final ObjectMapper JSON = new ObjectMapper();

  private MetasrvProtocol() {}

  /**
   * The descriptor of a {@code DoPut}: what to write, the operation's identity (its {@code
   * sha256} is the operation's digest, which decides replays), and {@code payloadSha256}, the
   * SHA-256 of the stream's IPC messages as sent, which the server recomputes.
   */
  record PutCommand(PutKind kind, TableIdent ident, Optional<UUID> incarnation,
      Optional<String> engine, Optional<Schema> schema, AppendOperation operation,
      String payloadSha256) {}

  static ObjectNode object() {
    return JSON.createObjectNode();
  }

  static byte[] bytes(JsonNode node) {
    try {
      return JSON.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode a Metasrv message", e);
    }
  }

  static JsonNode parse(byte[] bytes, String what) {
    try {
      JsonNode node = JSON.readTree(bytes);
      if (node == null || !node.isObject()) {
        throw new BadRequestException("the " + what + " is not a JSON object");
      }
      return node;
    } catch (IOException e) {
      throw new BadRequestException("the " + what + " is not valid JSON: " + e.getMessage());
    }
  }

  static ObjectNode ident(TableIdent ident) {
    return object().put("namespace", ident.namespace()).put("name", ident.name());
  }

  static TableIdent ident(JsonNode node) {
    return TableIdent.of(text(node, "namespace"), text(node, "name"));
  }

  static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isTextual()) {
      throw new BadRequestException("the request lacks the text field '" + field + "'");
    }
    return value.asText();
  }

  static ObjectNode schema(ObjectNode node, Schema schema) {
    try {
      node.set("schema", JSON.readTree(schema.toJson()));
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode a schema", e);
    }
    return node;
  }

  static Schema schema(JsonNode node) {
    JsonNode value = node.get("schema");
    if (value == null || !value.isObject()) {
      throw new BadRequestException("the request lacks the schema");
    }
    try {
      return Schema.fromJSON(JSON.writeValueAsString(value));
    } catch (IOException | RuntimeException e) {
      throw new BadRequestException("the schema cannot be read: " + e.getMessage());
    }
  }

  static ObjectNode entry(TableEntry entry) {
    ObjectNode node = ident(entry.ident())
        .put("incarnation", entry.incarnation().toString())
        .put("engine", entry.engine())
        .put("location", entry.location().uri().toString())
        .put("version", entry.version().number())
        .put("createdAt", entry.createdAt().toString());
    return schema(node, entry.schema());
  }

  static TableEntry decodeEntry(JsonNode node) {
    try {
      return new TableEntry(ident(node), UUID.fromString(text(node, "incarnation")),
          text(node, "engine"), new TableLocation(URI.create(text(node, "location"))),
          Version.of(node.path("version").asLong()), schema(node),
          Instant.parse(text(node, "createdAt")));
    } catch (IllegalArgumentException | java.time.format.DateTimeParseException e) {
      throw new BadRequestException("a table record cannot be read: " + e.getMessage());
    }
  }

  static ObjectNode snapshot(RegistrySnapshot snapshot) {
    ObjectNode node = object().put("generation", snapshot.generation());
    ArrayNode namespaces = node.putArray("namespaces");
    snapshot.namespaces().forEach(namespaces::add);
    ArrayNode tables = node.putArray("tables");
    snapshot.tables().forEach(t -> tables.add(entry(t)));
    return node;
  }

  static RegistrySnapshot decodeSnapshot(JsonNode node) {
    List<String> namespaces = new ArrayList<>();
    node.path("namespaces").forEach(n -> namespaces.add(n.asText()));
    List<TableEntry> tables = new ArrayList<>();
    node.path("tables").forEach(t -> tables.add(decodeEntry(t)));
    return new RegistrySnapshot(node.path("generation").asLong(), namespaces, tables);
  }

  static byte[] encode(PutCommand command) {
    ObjectNode node = ident(command.ident()).put("kind", command.kind().name().toLowerCase());
    command.incarnation().ifPresent(i -> node.put("incarnation", i.toString()));
    command.engine().ifPresent(e -> node.put("engine", e));
    command.schema().ifPresent(s -> schema(node, s));
    AppendOperation op = command.operation();
    node.put("tenant", op.tenant()).put("table", op.table())
        .put("operationId", op.operationId().toString()).put("sha256", op.sha256())
        .put("payloadSha256", command.payloadSha256());
    return bytes(node);
  }

  static PutCommand decodePut(byte[] bytes) {
    JsonNode node = parse(bytes, "DoPut descriptor command");
    PutKind kind;
    try {
      kind = PutKind.valueOf(text(node, "kind").toUpperCase());
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("unknown DoPut kind '" + node.get("kind").asText()
          + "'; expected append, create_with or replace");
    }
    try {
      AppendOperation operation = new AppendOperation(text(node, "tenant"), text(node, "table"),
          UUID.fromString(text(node, "operationId")), text(node, "sha256"));
      Optional<UUID> incarnation = node.has("incarnation")
          ? Optional.of(UUID.fromString(text(node, "incarnation"))) : Optional.empty();
      Optional<String> engine = node.has("engine")
          ? Optional.of(text(node, "engine")) : Optional.empty();
      Optional<Schema> schema = node.has("schema") ? Optional.of(schema(node)) : Optional.empty();
      if (kind != PutKind.APPEND && schema.isEmpty()) {
        throw new BadRequestException("a " + kind.name().toLowerCase() + " needs the schema");
      }
      if (kind == PutKind.CREATE_WITH && engine.isEmpty()) {
        throw new BadRequestException("a create_with needs the engine");
      }
      String payload = text(node, "payloadSha256");
      if (!payload.matches("[0-9a-f]{64}")) {
        throw new BadRequestException("payloadSha256 must be 64 lowercase hex digits");
      }
      return new PutCommand(kind, ident(node), incarnation, engine, schema, operation, payload);
    } catch (BadRequestException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("the DoPut descriptor is invalid: " + e.getMessage());
    }
  }

  /** A request the server cannot read. Nothing was changed. */
  static final class BadRequestException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadRequestException(String message) {
      super(message);
    }
  }
}
