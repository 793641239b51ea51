package dev.lake.engine.log.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lake.engine.log.store.LocalObjectStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Encoded and compressed chunks that are damaged, or hostile with their checksums made to match,
 * are reported naming the block and column, never decoded into garbage, never an unchecked
 * exception of the decoder or a crash of the native codec.
 */
class ChunkEncodingCorruptionTest {

  private static final Schema SCHEMA = new Schema(List.of(
      new Field("mode", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
      new Field("n", FieldType.nullable(new ArrowType.Int(64, true)), null),
      new Field("text", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
  private static final int ROWS = 1000;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A corruption report: what the reader handed its handler. */
  static final class Reported extends RuntimeException {
    final int block;
    final String column;
    final String problem;

    Reported(int block, String column, String problem, Throwable cause) {
      super(block + " " + column + " " + problem, cause);
      this.block = block;
      this.column = column;
      this.problem = problem;
    }
  }

  @TempDir Path dir;
  private RootAllocator allocator;
  private LocalObjectStore store;
  private String key;
  private Path file;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new LocalObjectStore(dir);
  }

  @AfterEach
  void tearDown() {
    assertEquals(0, allocator.getAllocatedMemory(), "leaked Arrow memory");
    allocator.close();
  }

  @Test
  void flippedByteInAnEncodedChunkFailsItsChecksum() throws IOException {
    write(Compression.FAST);
    ChunkMeta n = chunk(1);
    flip(n.offset() + n.length() / 2);
    Reported r = readFails();
    assertEquals(1, r.block);
    assertEquals("n", r.column);
    assertTrue(r.problem.contains("checksum"), r.problem);
  }

  @Test
  void flippedByteInACompressedChunkFailsItsChecksum() throws IOException {
    write(Compression.SMALL);
    ChunkMeta text = chunk(2);
    assertEquals(ChunkCodec.ZSTD, text.encoding().codec());
    flip(text.offset() + text.length() / 2);
    Reported r = readFails();
    assertEquals("text", r.column);
    assertTrue(r.problem.contains("checksum"), r.problem);
  }

  @Test
  void compressedBytesThatDoNotDecompressAreReportedEvenWithAMatchingChecksum() throws IOException {
    write(Compression.SMALL);
    ChunkMeta text = chunk(2);
    tamperChunk(2, bytes -> Arrays.fill(bytes, 4, bytes.length, (byte) 0x5A));
    Reported r = readFails();
    assertEquals(1, r.block);
    assertEquals("text", r.column);
    assertTrue(r.problem.contains("decompress"), r.problem);
    assertTrue(text.length() > 4);
  }

  @Test
  void aDictionaryCodeBeyondTheDictionaryIsReported() throws IOException {
    write(Compression.FAST);
    ChunkMeta mode = chunk(0);
    assertEquals(ChunkCodec.DICT, mode.encoding().scheme());
    // Five entries take 3-bit codes; the packed words end the chunk. All ones is code 7.
    long words = (ROWS / 2 * 3L + 63) / 64;
    tamperChunk(0, bytes -> bytes[(int) (bytes.length - words * 8)] = (byte) 0xFF);
    Reported r = readFails();
    assertEquals("mode", r.column);
    assertTrue(r.problem.contains("beyond its dictionary of 5"), r.problem);
  }

  @Test
  void aBitWidthBeyondSixtyFourIsReported() throws IOException {
    write(Compression.FAST);
    assertEquals(ChunkCodec.FOR, chunk(1).encoding().scheme());
    tamperChunk(1, bytes -> bytes[8] = 65);
    Reported r = readFails();
    assertEquals("n", r.column);
    assertTrue(r.problem.contains("bit width"), r.problem);
  }

  @Test
  void anEncodedLengthTheChunkDoesNotHaveIsReported() throws IOException {
    write(Compression.FAST);
    tamperFooter(chunk -> chunk.put("encoded", chunk.get("encoded").asLong() - 8), 1);
    Reported r = readFails();
    assertEquals("n", r.column);
    assertTrue(r.problem.contains("footer says"), r.problem);
  }

  @Test
  void anEncodedLengthBeyondTheBuffersIsRefusedWithTheFooter() throws IOException {
    write(Compression.SMALL);
    tamperFooter(chunk -> chunk.put("encoded", 1L << 40), 2);
    SegmentFormatException e = assertThrows(SegmentFormatException.class,
        () -> SegmentFile.readFooter(store, key, -1, SCHEMA));
    assertTrue(e.getMessage().contains("malformed chunk index"), e.getMessage());
  }

  @Test
  void anUnknownEncodingIsRefusedWithTheFooter() throws IOException {
    write(Compression.SMALL);
    tamperFooter(chunk -> chunk.put("codec", "lzma"), 2);
    SegmentFormatException e = assertThrows(SegmentFormatException.class,
        () -> SegmentFile.readFooter(store, key, -1, SCHEMA));
    assertTrue(e.getMessage().contains("'lzma'"), e.getMessage());
  }

  // --- helpers ---

  private void write(Compression compression) throws IOException {
    try (BufferAllocator staging = allocator.newChildAllocator("staging", 0, Long.MAX_VALUE);
        SegmentAppender appender = new SegmentAppender(store, "data/", SCHEMA, ROWS / 2, 1 << 30,
            compression, staging);
        VectorSchemaRoot batch = VectorSchemaRoot.create(SCHEMA, allocator)) {
      batch.allocateNew();
      VarCharVector mode = (VarCharVector) batch.getVector(0);
      BigIntVector n = (BigIntVector) batch.getVector(1);
      VarCharVector text = (VarCharVector) batch.getVector(2);
      for (int i = 0; i < ROWS; i++) {
        mode.setSafe(i, List.of("AIR", "MAIL", "SHIP", "RAIL", "TRUCK").get(i % 5).getBytes(StandardCharsets.UTF_8));
        n.set(i, 1_000_000L + i);
        text.setSafe(i, ("a comment that repeats itself " + (i % 7)).repeat(20).getBytes(StandardCharsets.UTF_8));
      }
      batch.setRowCount(ROWS);
      appender.append(batch);
      key = "data/" + appender.finish().getFirst().fileName();
    }
    file = dir.resolve(key);
  }

  /** Column {@code column}'s chunk in block 1. */
  private ChunkMeta chunk(int column) throws IOException {
    return SegmentFile.readFooter(store, key, -1, SCHEMA).blocks().get(1).columns().get(column);
  }

  private Reported readFails() throws IOException {
    SegmentFooter footer = SegmentFile.readFooter(store, key, -1, SCHEMA);
    List<Integer> blocks = IntStream.range(0, footer.blocks().size()).boxed().toList();
    return assertThrows(Reported.class, () -> {
      try (ArrowReader reader = SegmentFile.openBlocks(store, key, footer, blocks, List.of(0, 1, 2), allocator,
          Reported::new)) {
        while (reader.loadNextBatch()) {
          // read everything
        }
      }
    });
  }

  private void flip(long position) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    bytes[(int) position] ^= 0x10;
    Files.write(file, bytes);
  }

  /** Changes block 1's chunk of {@code column} and makes its checksum match again. */
  private void tamperChunk(int column, Consumer<byte[]> change) throws IOException {
    ChunkMeta meta = chunk(column);
    byte[] all = Files.readAllBytes(file);
    byte[] chunk = Arrays.copyOfRange(all, (int) meta.offset(), (int) (meta.offset() + meta.length()));
    change.accept(chunk);
    System.arraycopy(chunk, 0, all, (int) meta.offset(), chunk.length);
    Files.write(file, all);
    CRC32C crc = new CRC32C();
    crc.update(chunk);
    tamperFooter(n -> n.put("crc32c", (int) crc.getValue()), column);
  }

  /** Changes block 1's footer entry of {@code column} and rewrites the footer with a valid tail. */
  private void tamperFooter(Consumer<ObjectNode> change, int column) throws IOException {
    byte[] all = Files.readAllBytes(file);
    ByteBuffer tail = ByteBuffer.wrap(all, all.length - 16, 16).order(ByteOrder.LITTLE_ENDIAN);
    int length = tail.getInt(all.length - 16);
    int start = all.length - 16 - length;
    ObjectNode root = (ObjectNode) JSON.readTree(Arrays.copyOfRange(all, start, start + length));
    change.accept((ObjectNode) root.get("blocks").get(1).get("columns").get(column));
    byte[] footer = JSON.writeValueAsBytes(root);
    CRC32C crc = new CRC32C();
    crc.update(footer);
    ByteBuffer out = ByteBuffer.allocate(start + footer.length + 16).order(ByteOrder.LITTLE_ENDIAN);
    out.put(all, 0, start).put(footer).putInt(footer.length).putInt((int) crc.getValue())
        .put(SegmentFile.MAGIC);
    Files.write(file, out.array());
  }
}
