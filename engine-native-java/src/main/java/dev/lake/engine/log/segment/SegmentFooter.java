package dev.lake.engine.log.segment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The index at the end of a segment: the schema it was written with and every block's chunks
 * and statistics. Encoded as compact JSON; the binary tail around it carries its length and
 * CRC32C (see {@link SegmentFile}).
 */
public record SegmentFooter(Schema schema, List<BlockMeta> blocks) {

  /** Footers of segments whose columns are all flat. */
  static final int FORMAT = 1;
  /**
   * Footers of segments with a struct or list column: chunks list their nodes. Readers of format
   * 1 only refuse such segments ("unknown footer format") instead of misreading them.
   */
  static final int FORMAT_NESTED = 2;
  /**
   * Footers of segments with an encoded chunk ({@link ChunkMeta.Encoding}): such chunks name
   * their encoding, codec and encoded length. Readers of formats 1 and 2 refuse them.
   */
  static final int FORMAT_ENCODED = 3;
  private static final ObjectMapper JSON = new ObjectMapper();

  public SegmentFooter {
    blocks = List.copyOf(blocks);
  }

  public long rowCount() {
    long rows = 0;
    for (BlockMeta b : blocks) {
      rows += b.rows();
    }
    return rows;
  }

  byte[] encode() throws IOException {
    List<ColumnKind> kinds = kinds(schema);
    ObjectNode root = JSON.createObjectNode();
    boolean encoded = blocks.stream().anyMatch(b -> b.columns().stream().anyMatch(x -> x.encoding() != null));
    root.put("format", encoded ? FORMAT_ENCODED : kinds.contains(null) ? FORMAT_NESTED : FORMAT);
    root.set("schema", JSON.readTree(schema.toJson()));
    ArrayNode blockArray = root.putArray("blocks");
    for (BlockMeta block : blocks) {
      ObjectNode b = blockArray.addObject();
      b.put("rows", block.rows());
      ArrayNode cols = b.putArray("columns");
      for (int c = 0; c < block.columns().size(); c++) {
        ChunkMeta chunk = block.columns().get(c);
        ObjectNode n = cols.addObject();
        n.put("offset", chunk.offset());
        n.put("length", chunk.length());
        n.put("crc32c", chunk.crc32c());
        if (chunk.encoding() != null) {
          n.put("enc", chunk.encoding().scheme());
          n.put("codec", chunk.encoding().codec());
          n.put("encoded", chunk.encoding().encodedLength());
        }
        ArrayNode lengths = n.putArray("buffers");
        chunk.bufferLengths().forEach(lengths::add);
        if (!chunk.nodes().isEmpty()) {
          ArrayNode nodes = n.putArray("nodes");
          for (ChunkMeta.Node node : chunk.nodes()) {
            nodes.add(node.length()).add(node.nulls());
          }
        }
        ColumnStats s = chunk.stats();
        n.put("nulls", s.nullCount());
        if (s.hasBounds()) {
          n.put("min", encodeValue(kinds.get(c), s.min()));
          n.put("max", encodeValue(kinds.get(c), s.max()));
          n.put("exact", s.exact());
        }
      }
    }
    return JSON.writeValueAsBytes(root);
  }

  static SegmentFooter decode(byte[] bytes) throws SegmentFormatException {
    try {
      JsonNode root = JSON.readTree(bytes);
      int format = root == null ? 0 : root.path("format").asInt();
      if (format != FORMAT && format != FORMAT_NESTED && format != FORMAT_ENCODED) {
        throw new SegmentFormatException("has footer format " + format + ", which this version of"
            + " lake cannot read (it reads formats " + FORMAT + " to " + FORMAT_ENCODED + ")");
      }
      Schema schema = Schema.fromJSON(root.get("schema").toString());
      List<ColumnKind> kinds = kinds(schema);
      List<BlockMeta> blocks = new ArrayList<>();
      for (JsonNode b : root.withArray("blocks")) {
        List<ChunkMeta> chunks = new ArrayList<>();
        int c = 0;
        for (JsonNode n : b.withArray("columns")) {
          if (c >= kinds.size()) {
            throw new SegmentFormatException("a block has more columns than the schema");
          }
          List<Long> lengths = new ArrayList<>();
          n.withArray("buffers").forEach(x -> lengths.add(x.asLong()));
          long nulls = requireLong(n, "nulls");
          List<ChunkMeta.Node> nodes = new ArrayList<>();
          JsonNode nodeArray = n.path("nodes");
          for (int i = 0; i + 1 < nodeArray.size(); i += 2) {
            nodes.add(new ChunkMeta.Node(nodeArray.get(i).asInt(), nodeArray.get(i + 1).asInt()));
          }
          if ((kinds.get(c) == null) != (format != FORMAT && !nodes.isEmpty())
              || (kinds.get(c) == null && n.has("min"))) {
            throw new SegmentFormatException("a column's chunk does not fit its type");
          }
          ColumnStats stats = n.has("min")
              ? new ColumnStats(nulls, decodeValue(kinds.get(c), n.get("min").asText()),
                  decodeValue(kinds.get(c), n.get("max").asText()), n.path("exact").asBoolean())
              : ColumnStats.unknown(nulls);
          ChunkMeta.Encoding encoding = null;
          if (n.has("enc")) {
            String scheme = n.path("enc").asText();
            String codec = n.path("codec").asText();
            if (format != FORMAT_ENCODED || kinds.get(c) == null) {
              throw new SegmentFormatException("a column's chunk is encoded where its footer format cannot be");
            }
            if (!ChunkCodec.knownScheme(scheme) || !ChunkCodec.knownCodec(codec)) {
              throw new SegmentFormatException("a chunk has encoding '" + scheme + "' with codec '" + codec
                  + "', which this version of lake cannot read");
            }
            encoding = new ChunkMeta.Encoding(scheme, codec, requireLong(n, "encoded"));
          }
          chunks.add(new ChunkMeta(requireLong(n, "offset"), requireLong(n, "length"),
              (int) requireLong(n, "crc32c"), lengths, stats, nodes, encoding));
          c++;
        }
        blocks.add(new BlockMeta((int) requireLong(b, "rows"), chunks));
      }
      return new SegmentFooter(schema, blocks);
    } catch (SegmentFormatException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw new SegmentFormatException("unreadable footer: " + e.getMessage(), e);
    }
  }

  static List<ColumnKind> kinds(Schema schema) {
    return schema.getFields().stream().map(ColumnKind::of).toList();
  }

  private static long requireLong(JsonNode node, String name) throws SegmentFormatException {
    JsonNode v = node.get(name);
    if (v == null || !v.isIntegralNumber()) {
      throw new SegmentFormatException("footer field '" + name + "' is missing");
    }
    return v.asLong();
  }

  private static String encodeValue(ColumnKind kind, Object value) {
    return switch (kind) {
      case UTF8 -> Base64.getEncoder().encodeToString((byte[]) value);
      case DECIMAL128 -> ((BigDecimal) value).toString();
      default -> value.toString();
    };
  }

  private static Object decodeValue(ColumnKind kind, String text) {
    return switch (kind) {
      case FLOAT32, FLOAT64 -> Double.parseDouble(text);
      case BOOL -> Boolean.parseBoolean(text);
      case UTF8 -> Base64.getDecoder().decode(text.getBytes(StandardCharsets.US_ASCII));
      case DECIMAL128 -> new BigDecimal(text);
      default -> Long.parseLong(text);
    };
  }
}
