package dev.lake.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lake.engine.AppendOperation;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The durable record of one exactly-once write, under {@code op/<tenant>/<ns>/<name>/<op-id>}:
 * what was asked (kind, digest), against what (base incarnation and version), what it produced
 * (target incarnation and location, result version) and how far it got ({@link State}).
 *
 * @param incarnation the incarnation written into: the table's own for an append, the fresh one
 *     of a create or replace
 * @param location that incarnation's location
 * @param base the version the write started from (-1 for a create)
 * @param result the version the engine committed (-1 until known)
 * @param oldLocation for a replace, the replaced incarnation's location (removed once committed)
 */
record OperationRecord(
    Kind kind,
    State state,
    String tenant,
    String table,
    UUID operationId,
    String digest,
    TableIdent ident,
    UUID incarnation,
    String engine,
    TableLocation location,
    long base,
    long result,
    Optional<TableLocation> oldLocation,
    Instant reservedAt,
    Instant updatedAt) {

  enum Kind { APPEND, CREATE, REPLACE }

  enum State {
    RESERVED, ENGINE_COMMITTED, COMMITTED, ABORTED;

    boolean terminal() {
      return this == COMMITTED || this == ABORTED;
    }

    String code() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  static final String PREFIX = "op/";
  private static final int FORMAT = 1;
  private static final Pattern TENANT = Pattern.compile("[A-Za-z0-9_.@-]{1,128}");
  private static final ObjectMapper JSON = new ObjectMapper();

  static String key(TableIdent ident, AppendOperation operation) {
    if (!TENANT.matcher(operation.tenant()).matches()) {
      throw new InvalidNameException("tenant '" + operation.tenant() + "' is not 1..128 letters,"
          + " digits or _.@-");
    }
    return PREFIX + operation.tenant() + "/" + ident.namespace() + "/" + ident.name() + "/"
        + operation.operationId();
  }

  static OperationRecord reserve(Kind kind, TableIdent ident, AppendOperation op, UUID incarnation,
      String engine, TableLocation location, long base, Optional<TableLocation> oldLocation,
      Instant now) {
    return new OperationRecord(kind, State.RESERVED, op.tenant(), op.table(), op.operationId(),
        op.sha256(), ident, incarnation, engine, location, base, -1, oldLocation, now, now);
  }

  AppendOperation operation() {
    return new AppendOperation(tenant, table, operationId, digest);
  }

  /**
   * @throws OperationConflictException unless {@code op} is this record's write repeated
   */
  void requireSame(Kind asked, TableIdent askedIdent, AppendOperation op) {
    if (kind != asked) {
      throw new OperationConflictException(operationId, "a " + kind.name().toLowerCase(java.util.Locale.ROOT)
          + " of lake." + ident + ", not a " + asked.name().toLowerCase(java.util.Locale.ROOT));
    }
    if (!digest.equals(op.sha256()) || !table.equals(op.table()) || !ident.equals(askedIdent)) {
      throw new OperationConflictException(operationId, "another payload (digest " + digest
          + ", this one " + op.sha256() + ")");
    }
  }

  OperationRecord engineCommitted(Version version, Instant now) {
    return new OperationRecord(kind, State.ENGINE_COMMITTED, tenant, table, operationId, digest,
        ident, incarnation, engine, location, base, version.number(), oldLocation, reservedAt, now);
  }

  OperationRecord finished(State terminal, Optional<Version> version, Instant now) {
    return new OperationRecord(kind, terminal, tenant, table, operationId, digest, ident,
        incarnation, engine, location, base, version.map(Version::number).orElse(result),
        oldLocation, reservedAt, now);
  }

  Optional<Version> resultVersion() {
    return result < 0 ? Optional.empty() : Optional.of(Version.of(result));
  }

  byte[] encode() {
    ObjectNode node = JSON.createObjectNode();
    node.put("format", FORMAT);
    node.put("kind", kind.name().toLowerCase(java.util.Locale.ROOT));
    node.put("state", state.code());
    node.put("tenant", tenant);
    node.put("table", table);
    node.put("op", operationId.toString());
    node.put("digest", digest);
    node.put("ns", ident.namespace());
    node.put("name", ident.name());
    node.put("incarnation", incarnation.toString());
    node.put("engine", engine);
    node.put("location", location.uri().toString());
    node.put("base", base);
    node.put("result", result);
    oldLocation.ifPresent(old -> node.put("oldLocation", old.uri().toString()));
    node.put("reservedAt", reservedAt.toEpochMilli());
    node.put("updatedAt", updatedAt.toEpochMilli());
    try {
      return JSON.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new CatalogException("cannot encode operation record " + operationId, e);
    }
  }

  /**
   * @throws CatalogException if the record is unreadable: evidence is missing, so the operation
   *     is neither replayed nor redone
   */
  static OperationRecord decode(String key, byte[] bytes) {
    try {
      JsonNode node = JSON.readTree(bytes);
      if (node.path("format").asInt() != FORMAT) {
        throw new CatalogException("operation record " + key + " has unknown format "
            + node.path("format") + "; refusing to replay or redo it");
      }
      JsonNode old = node.get("oldLocation");
      return new OperationRecord(
          Kind.valueOf(node.get("kind").asText().toUpperCase(java.util.Locale.ROOT)),
          State.valueOf(node.get("state").asText().toUpperCase(java.util.Locale.ROOT)),
          node.get("tenant").asText(), node.get("table").asText(),
          UUID.fromString(node.get("op").asText()), node.get("digest").asText(),
          TableIdent.of(node.get("ns").asText(), node.get("name").asText()),
          UUID.fromString(node.get("incarnation").asText()), node.get("engine").asText(),
          new TableLocation(URI.create(node.get("location").asText())),
          node.get("base").asLong(), node.get("result").asLong(),
          old == null ? Optional.empty() : Optional.of(new TableLocation(URI.create(old.asText()))),
          Instant.ofEpochMilli(node.get("reservedAt").asLong()),
          Instant.ofEpochMilli(node.get("updatedAt").asLong()));
    } catch (IOException | RuntimeException e) {
      if (e instanceof CatalogException c) {
        throw c;
      }
      throw new CatalogException("operation record " + key + " is unreadable (" + e.getMessage()
          + "); refusing to replay or redo it", e);
    }
  }
}
