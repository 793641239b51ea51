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
 * JSON encoding of a {@link CommitEntry}. The last member, {@code "crc32c"}, is the CRC32C of the
 * document without it (the bytes before {@code ,"crc32c"} followed by a closing brace), so the
 * file stays plain JSON while a flipped byte is still detected.
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
    if (entry.operation() == null) {
      root.putNull("operation");
    } else {
      AppendOperation op = entry.operation();
      ObjectNode o = root.putObject("operation");
      o.put("tenant", op.tenant());
      o.put("table", op.table());
      o.put("operationId", op.operationId().toString());
      o.put("sha256", op.sha256());
    }
    root.set("schema", JSON.readTree(entry.schema().toJson()));
    ArrayNode added = root.putArray("added");
    for (SegmentRef s : entry.added()) {
      added.addObject().put("file", s.file()).put("rows", s.rows()).put("bytes", s.bytes());
    }
    ArrayNode removed = root.putArray("removed");
    entry.removed().forEach(removed::add);
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

  static CommitEntry decode(String file, byte[] bytes) throws CorruptEntryException {
    int bodyEnd = bytes.length - TRAILER;
    if (bodyEnd < 2
        || !Arrays.equals(bytes, bodyEnd, bodyEnd + CRC_PREFIX.length, CRC_PREFIX, 0, CRC_PREFIX.length)
        || bytes[bytes.length - 3] != '"' || bytes[bytes.length - 2] != '}'
        || bytes[bytes.length - 1] != '\n') {
      throw new CorruptEntryException(file, "is truncated or not a commit entry", null);
    }
    byte[] body = Arrays.copyOf(bytes, bodyEnd + 1);
    body[bodyEnd] = '}';
    CRC32C crc = new CRC32C();
    crc.update(body);
    String hex = new String(bytes, bodyEnd + CRC_PREFIX.length, 8, StandardCharsets.US_ASCII);
    if (!HexFormat.of().toHexDigits((int) crc.getValue()).equals(hex)) {
      throw new CorruptEntryException(file, "fails its checksum", null);
    }
    try {
      JsonNode root = JSON.readTree(body);
      if (root.path("format").asInt() != FORMAT) {
        throw new IllegalArgumentException("unknown entry format " + root.path("format"));
      }
      JsonNode o = root.get("operation");
      AppendOperation op = o == null || o.isNull() ? null : new AppendOperation(
          o.get("tenant").asText(), o.get("table").asText(),
          UUID.fromString(o.get("operationId").asText()), o.get("sha256").asText());
      List<SegmentRef> added = new ArrayList<>();
      for (JsonNode s : root.withArray("added")) {
        added.add(new SegmentRef(s.get("file").asText(), s.get("rows").asLong(), s.get("bytes").asLong()));
      }
      List<String> removed = new ArrayList<>();
      root.withArray("removed").forEach(r -> removed.add(r.asText()));
      return new CommitEntry(
          root.get("version").asLong(),
          Instant.parse(root.get("committedAt").asText()),
          op,
          Schema.fromJSON(root.get("schema").toString()),
          added,
          removed);
    } catch (IOException | RuntimeException e) {
      throw new CorruptEntryException(file, "cannot be decoded: " + e.getMessage(), e);
    }
  }
}
