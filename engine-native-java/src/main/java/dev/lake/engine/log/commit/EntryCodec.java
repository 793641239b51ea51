package dev.lake.engine.log.commit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lake.engine.AppendOperation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * JSON encoding of {@link CommitEntry} and {@link Checkpoint}. The last member, {@code "crc32c"},
 * is the CRC32C of the document without it (the bytes before {@code ,"crc32c"} followed by a
 * closing brace), so the file stays plain JSON while a flipped byte is still detected.
 */
final class EntryCodec {

  static final int FORMAT = 1;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final byte[] CRC_PREFIX = ",\"crc32c\":\"".getBytes(StandardCharsets.US_ASCII);
  /** {@code ,"crc32c":"} + 8 hex digits + {@code "}} + newline. */
  private static final int TRAILER = CRC_PREFIX.length + 8 + 3;

  private EntryCodec() {}

  static byte[] encode(CommitEntry entry) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("version", entry.version());
    root.put("committedAt", entry.committedAt().toString());
    root.put("kind", entry.kind().name().toLowerCase(java.util.Locale.ROOT));
    putOperation(root, entry.operation());
    root.set("schema", JSON.readTree(entry.schema().toJson()));
    ArrayNode added = root.putArray("added");
    for (SegmentRef s : entry.added()) {
      added.addObject().put("file", s.file()).put("rows", s.rows()).put("bytes", s.bytes());
    }
    ArrayNode removed = root.putArray("removed");
    entry.removed().forEach(removed::add);
    return seal(root);
  }

  static CommitEntry decode(String file, byte[] bytes) throws CorruptEntryException {
    JsonNode root = unseal(file, bytes, "commit log entry");
    try {
      AppendOperation op = operation(root.get("operation"));
      List<SegmentRef> added = new ArrayList<>();
      for (JsonNode s : root.withArray("added")) {
        added.add(new SegmentRef(s.get("file").asText(), s.get("rows").asLong(), s.get("bytes").asLong()));
      }
      List<String> removed = new ArrayList<>();
      root.withArray("removed").forEach(r -> removed.add(r.asText()));
      long version = root.get("version").asLong();
      return new CommitEntry(
          version,
          Instant.parse(root.get("committedAt").asText()),
          kind(root, version, op),
          op,
          Schema.fromJSON(root.get("schema").toString()),
          added,
          removed);
    } catch (IOException | RuntimeException e) {
      throw new CorruptEntryException("commit log entry", file, "cannot be decoded: " + e.getMessage(), e);
    }
  }

  static byte[] encode(Checkpoint checkpoint) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("version", checkpoint.version());
    root.set("schema", JSON.readTree(checkpoint.schema().toJson()));
    ArrayNode live = root.putArray("live");
    for (LiveSegment s : checkpoint.live()) {
      live.addObject().put("file", s.ref().file()).put("rows", s.ref().rows())
          .put("bytes", s.ref().bytes()).put("addedIn", s.addedIn());
    }
    ArrayNode history = root.putArray("history");
    for (HistoryEntry h : checkpoint.history()) {
      ObjectNode n = history.addObject();
      n.put("version", h.version());
      n.put("committedAt", h.committedAt().toString());
      n.put("kind", h.kind().name().toLowerCase(java.util.Locale.ROOT));
      putOperation(n, h.operation());
    }
    return seal(root);
  }

  static Checkpoint decodeCheckpoint(String file, byte[] bytes) throws CorruptEntryException {
    JsonNode root = unseal(file, bytes, "checkpoint");
    try {
      List<LiveSegment> live = new ArrayList<>();
      for (JsonNode s : root.withArray("live")) {
        live.add(new LiveSegment(
            new SegmentRef(s.get("file").asText(), s.get("rows").asLong(), s.get("bytes").asLong()),
            s.get("addedIn").asLong()));
      }
      List<HistoryEntry> history = new ArrayList<>();
      for (JsonNode h : root.withArray("history")) {
        AppendOperation op = operation(h.get("operation"));
        long version = h.get("version").asLong();
        history.add(new HistoryEntry(version, Instant.parse(h.get("committedAt").asText()),
            kind(h, version, op), op));
      }
      return new Checkpoint(root.get("version").asLong(),
          Schema.fromJSON(root.get("schema").toString()), live, history);
    } catch (IOException | RuntimeException e) {
      throw new CorruptEntryException("checkpoint", file, "cannot be decoded: " + e.getMessage(), e);
    }
  }

  private static void putOperation(ObjectNode node, AppendOperation op) {
    if (op == null) {
      node.putNull("operation");
    } else {
      ObjectNode o = node.putObject("operation");
      o.put("tenant", op.tenant());
      o.put("table", op.table());
      o.put("operationId", op.operationId().toString());
      o.put("sha256", op.sha256());
    }
  }

  private static AppendOperation operation(JsonNode o) {
    return o == null || o.isNull() ? null : new AppendOperation(
        o.get("tenant").asText(), o.get("table").asText(),
        UUID.fromString(o.get("operationId").asText()), o.get("sha256").asText());
  }

  /** Entries written before {@code kind} existed: version 0 is the create, others appends. */
  private static CommitEntry.Kind kind(JsonNode node, long version, AppendOperation op) {
    JsonNode k = node.get("kind");
    if (k == null) {
      return op == null && version == 0 ? CommitEntry.Kind.CREATE : CommitEntry.Kind.APPEND;
    }
    return CommitEntry.Kind.valueOf(k.asText().toUpperCase(java.util.Locale.ROOT));
  }

  private static byte[] seal(ObjectNode root) throws IOException {
    byte[] body = JSON.writeValueAsBytes(root);
    CRC32C crc = new CRC32C();
    crc.update(body);
    byte[] out = Arrays.copyOf(body, body.length - 1 + TRAILER);
    int p = body.length - 1;
    System.arraycopy(CRC_PREFIX, 0, out, p, CRC_PREFIX.length);
    p += CRC_PREFIX.length;
    byte[] hex = HexFormat.of().toHexDigits((int) crc.getValue()).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(hex, 0, out, p, 8);
    p += 8;
    out[p++] = '"';
    out[p++] = '}';
    out[p] = '\n';
    return out;
  }

  private static JsonNode unseal(String file, byte[] bytes, String what) throws CorruptEntryException {
    int bodyEnd = bytes.length - TRAILER;
    if (bodyEnd < 2
        || !Arrays.equals(bytes, bodyEnd, bodyEnd + CRC_PREFIX.length, CRC_PREFIX, 0, CRC_PREFIX.length)
        || bytes[bytes.length - 3] != '"' || bytes[bytes.length - 2] != '}'
        || bytes[bytes.length - 1] != '\n') {
      throw new CorruptEntryException(what, file, "is truncated or not a " + what, null);
    }
    byte[] body = Arrays.copyOf(bytes, bodyEnd + 1);
    body[bodyEnd] = '}';
    CRC32C crc = new CRC32C();
    crc.update(body);
    String hex = new String(bytes, bodyEnd + CRC_PREFIX.length, 8, StandardCharsets.US_ASCII);
    if (!HexFormat.of().toHexDigits((int) crc.getValue()).equals(hex)) {
      throw new CorruptEntryException(what, file, "fails its checksum", null);
    }
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      throw new CorruptEntryException(what, file, "cannot be decoded: " + e.getMessage(), e);
    }
    if (root == null || root.path("format").asInt() != FORMAT) {
      throw new CorruptEntryException(what, file, "has an unknown format", null);
    }
    return root;
  }
}
