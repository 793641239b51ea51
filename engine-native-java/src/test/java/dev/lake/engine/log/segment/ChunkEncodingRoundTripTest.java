package dev.lake.engine.log.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.log.store.LocalObjectStore;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every encoding and codec reads back exactly what was written: random and adversarial data of
 * every flat type, through mapped and copying reads.
 */
class ChunkEncodingRoundTripTest {

  private static final int BLOCK_ROWS = 300;

  static final Schema SCHEMA = new Schema(List.of(
      nullable("i8", new ArrowType.Int(8, true)),
      nullable("i16", new ArrowType.Int(16, true)),
      nullable("i32", new ArrowType.Int(32, true)),
      nullable("i64", new ArrowType.Int(64, true)),
      nullable("u8", new ArrowType.Int(8, false)),
      nullable("u16", new ArrowType.Int(16, false)),
      nullable("u32", new ArrowType.Int(32, false)),
      nullable("u64", new ArrowType.Int(64, false)),
      nullable("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      nullable("flag", ArrowType.Bool.INSTANCE),
      nullable("day", new ArrowType.Date(DateUnit.DAY)),
      nullable("ms", new ArrowType.Date(DateUnit.MILLISECOND)),
      nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
      nullable("amount", new ArrowType.Decimal(38, 2, 128)),
      nullable("name", ArrowType.Utf8.INSTANCE),
      nullable("blob", ArrowType.Binary.INSTANCE)));

  /** How a test column's values are made. */
  enum Pattern {
    RANDOM, ALL_NULL, ONE_VALUE, ALL_DISTINCT, EXTREMES, FEW_VALUES, LONG_STRINGS, SOME_NULLS
  }

  @TempDir Path dir;
  private RootAllocator allocator;
  private LocalObjectStore store;

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

  @ParameterizedTest
  @EnumSource(Pattern.class)
  void everyPatternReadsBackExactlyUnderFastAndSmall(Pattern pattern) throws IOException {
    // Across block boundaries: batches straddle blocks, the last block has one row.
    int[] batches = {1, 299, 301, 450, 150};
    for (Compression c : List.of(Compression.FAST, Compression.SMALL)) {
      List<List<Object>> written = new ArrayList<>();
      SegmentFooter footer = writeAndCheck(pattern, c, batches, written);
      assertEquals(IntStream.of(batches).sum(), footer.rowCount());
    }
  }

  @Test
  void integersOfOneValueAreStoredAsConstantsAndFewStringsAsADictionary() throws IOException {
    SegmentFooter footer = writeAndCheck(Pattern.ONE_VALUE, Compression.FAST, new int[] {600}, new ArrayList<>());
    ChunkMeta i32 = footer.blocks().getFirst().columns().get(2);
    assertEquals(ChunkCodec.FOR, i32.encoding().scheme());
    assertTrue(i32.length() < 64, "a constant takes a header: " + i32.length());
    footer = writeAndCheck(Pattern.FEW_VALUES, Compression.FAST, new int[] {600}, new ArrayList<>());
    assertEquals(ChunkCodec.DICT, footer.blocks().getFirst().columns().get(14).encoding().scheme());
    assertEquals(ChunkCodec.FOR, footer.blocks().getFirst().columns().get(13).encoding().scheme());
  }

  @Test
  void smallCompressesWhatNoEncodingFits() throws IOException {
    SegmentFooter footer = writeAndCheck(Pattern.LONG_STRINGS, Compression.SMALL, new int[] {40}, new ArrayList<>());
    ChunkMeta name = footer.blocks().getFirst().columns().get(14);
    assertEquals(ChunkCodec.ZSTD, name.encoding().codec());
    assertTrue(name.length() < name.bufferLengths().get(2) / 4, name.toString());
  }

  @Test
  void noneWritesTheRawFormat() throws IOException {
    SegmentFooter footer = writeAndCheck(Pattern.FEW_VALUES, Compression.NONE, new int[] {600}, new ArrayList<>());
    footer.blocks().forEach(b -> b.columns().forEach(chunk -> assertEquals(null, chunk.encoding())));
  }

  /** Writes the batches, reads them back mapped and copied, and checks every value. */
  private SegmentFooter writeAndCheck(Pattern pattern, Compression compression, int[] batches,
      List<List<Object>> expected) throws IOException {
    Random random = new Random(pattern.ordinal() * 31L + compression.ordinal());
    List<SegmentAppender.Written> written;
    try (BufferAllocator staging = allocator.newChildAllocator("staging", 0, Long.MAX_VALUE);
        SegmentAppender appender = new SegmentAppender(store, "data/", SCHEMA, BLOCK_ROWS, 1 << 30,
            compression, staging)) {
      int row = 0;
      for (int n : batches) {
        try (VectorSchemaRoot batch = VectorSchemaRoot.create(SCHEMA, allocator)) {
          batch.allocateNew();
          for (int i = 0; i < n; i++, row++) {
            List<Object> values = new ArrayList<>();
            for (FieldVector v : batch.getFieldVectors()) {
              Object value = value(v.getField(), pattern, row, random);
              set(v, i, value);
              values.add(value);
            }
            expected.add(values);
          }
          batch.setRowCount(n);
          appender.append(batch);
        }
      }
      written = appender.finish();
    }
    assertEquals(1, written.size());
    String key = "data/" + written.getFirst().fileName();
    SegmentFooter footer = SegmentFile.readFooter(store, key, written.getFirst().bytes(), SCHEMA);
    List<Integer> blocks = IntStream.range(0, footer.blocks().size()).boxed().toList();
    List<Integer> columns = IntStream.range(0, SCHEMA.getFields().size()).boxed().toList();
    try (SegmentMappings mappings = new SegmentMappings(1L << 30)) {
      for (SegmentMappings m : new SegmentMappings[] {mappings, null}) {
        List<List<Object>> read = new ArrayList<>();
        try (ArrowReader reader = SegmentFile.openBlocks(store, key, footer, blocks, columns, allocator, m,
            (block, column, problem, cause) -> new IllegalStateException(block + " " + column + " " + problem, cause))) {
          while (reader.loadNextBatch()) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            for (int r = 0; r < root.getRowCount(); r++) {
              List<Object> values = new ArrayList<>();
              for (FieldVector v : root.getFieldVectors()) {
                values.add(normalise(v.isNull(r) ? null
                    : v instanceof DateMilliVector d ? (Object) d.get(r)
                    : v instanceof TimeStampMicroTZVector t ? (Object) t.get(r) : v.getObject(r)));
              }
              read.add(values);
            }
          }
        }
        assertEquals(expected.size(), read.size());
        for (int r = 0; r < read.size(); r++) {
          List<Object> want = expected.get(r).stream().map(ChunkEncodingRoundTripTest::normalise).toList();
          for (int c = 0; c < want.size(); c++) {
            if (!java.util.Objects.equals(want.get(c), read.get(r).get(c))) {
              throw new AssertionError(pattern + " " + compression + " row " + r + " column "
                  + SCHEMA.getFields().get(c).getName() + ": expected " + shortly(want.get(c)) + " ("
                  + (want.get(c) == null ? null : want.get(c).getClass().getSimpleName()) + "), read "
                  + shortly(read.get(r).get(c)) + " ("
                  + (read.get(r).get(c) == null ? null : read.get(r).get(c).getClass().getSimpleName()) + ")");
            }
          }
        }
      }
    }
    return footer;
  }

  private static Object value(Field field, Pattern pattern, int row, Random random) {
    String name = field.getName();
    return switch (pattern) {
      case ALL_NULL -> null;
      case ONE_VALUE -> of(name, 42, "same");
      case ALL_DISTINCT -> of(name, row * 7919L + 3, "v" + row);
      case EXTREMES -> extreme(name, row % 2 == 0);
      case FEW_VALUES -> of(name, row % 5, List.of("AIR", "MAIL", "SHIP", "RAIL", "TRUCK").get(row % 5));
      case LONG_STRINGS -> of(name, row, ("€ü漢字🙂" + row).repeat(2000));
      case SOME_NULLS -> row % 3 == 1 ? null : of(name, random.nextInt(1000), "n" + random.nextInt(10));
      case RANDOM -> of(name, random.nextLong(), randomString(random));
    };
  }

  private static String randomString(Random random) {
    int[] points = random.ints(random.nextInt(30), 0, 0x10FFFF)
        .filter(p -> p < 0xD800 || p > 0xDFFF).toArray();
    return new String(points, 0, points.length);
  }

  /** A value of column {@code name} derived from {@code x} (wrapped to the type) or {@code s}. */
  private static Object of(String name, long x, String s) {
    return switch (name) {
      case "i8" -> (byte) x;
      case "i16" -> (short) x;
      case "i32" -> (int) x;
      case "i64", "u64" -> x;
      case "u8" -> (byte) x;
      case "u16" -> (char) x;
      case "u32" -> (int) x;
      case "f64" -> x * 0.25;
      case "flag" -> (x & 1) == 0;
      case "day" -> (int) (x % 1_000_000);
      case "ms" -> x % 100_000_000_000_000L;
      case "ts" -> x % 100_000_000_000_000_000L;
      case "amount" -> BigDecimal.valueOf(x % 1_000_000_000_000L, 2);
      case "name" -> s;
      case "blob" -> s.getBytes(StandardCharsets.UTF_8);
      default -> throw new IllegalArgumentException(name);
    };
  }

  private static Object extreme(String name, boolean low) {
    return switch (name) {
      case "i8" -> low ? Byte.MIN_VALUE : Byte.MAX_VALUE;
      case "i16" -> low ? Short.MIN_VALUE : Short.MAX_VALUE;
      case "i32", "u32" -> low ? Integer.MIN_VALUE : Integer.MAX_VALUE;
      case "i64", "u64" -> low ? Long.MIN_VALUE : Long.MAX_VALUE;
      case "u8" -> low ? (byte) 0 : (byte) -1;
      case "u16" -> low ? (char) 0 : Character.MAX_VALUE;
      case "f64" -> low ? -Double.MAX_VALUE : Double.NaN;
      case "flag" -> low;
      case "day" -> low ? -719_162 : 2_932_896;
      case "ms" -> low ? -62_135_596_800_000L : 253_402_300_799_999L;
      case "ts" -> low ? -62_135_596_800_000_000L : 253_402_300_799_999_999L;
      case "amount" -> new BigDecimal(BigInteger.TEN.pow(38).subtract(BigInteger.ONE), 2)
          .multiply(BigDecimal.valueOf(low ? -1 : 1));
      case "name" -> low ? "" : "\uFFFF".repeat(100);
      case "blob" -> low ? new byte[0] : new byte[] {-1, 0, -1};
      default -> throw new IllegalArgumentException(name);
    };
  }

  private static void set(FieldVector v, int i, Object value) {
    if (value == null) {
      if (v instanceof BaseFixedWidthVector f) {
        f.setNull(i);
      } else if (v instanceof VarCharVector s) {
        s.setNull(i);
      } else {
        ((VarBinaryVector) v).setNull(i);
      }
      return;
    }
    switch (v) {
      case TinyIntVector t -> t.setSafe(i, (byte) value);
      case SmallIntVector t -> t.setSafe(i, (short) value);
      case IntVector t -> t.setSafe(i, (int) value);
      case BigIntVector t -> t.setSafe(i, (long) value);
      case UInt1Vector t -> t.setSafe(i, (byte) value);
      case UInt2Vector t -> t.setSafe(i, (char) value);
      case UInt4Vector t -> t.setSafe(i, (int) value);
      case UInt8Vector t -> t.setSafe(i, (long) value);
      case Float8Vector t -> t.setSafe(i, (double) value);
      case BitVector t -> t.setSafe(i, (boolean) value ? 1 : 0);
      case DateDayVector t -> t.setSafe(i, (int) value);
      case DateMilliVector t -> t.setSafe(i, (long) value);
      case TimeStampMicroTZVector t -> t.setSafe(i, (long) value);
      case DecimalVector t -> t.setSafe(i, (BigDecimal) value);
      case VarCharVector t -> t.setSafe(i, ((String) value).getBytes(StandardCharsets.UTF_8));
      case VarBinaryVector t -> t.setSafe(i, (byte[]) value);
      default -> throw new IllegalArgumentException(v.getClass().getName());
    }
  }

  /** What a written value reads back as, comparable with equals. */
  private static Object normalise(Object o) {
    return switch (o) {
      case null -> null;
      case Text t -> t.toString();
      case byte[] b -> HexFormat.of().formatHex(b);
      case java.time.LocalDateTime t -> t.toString();
      case Double d when d.isNaN() -> "NaN";
      case Character c -> (int) c.charValue();
      case Boolean b -> b;
      case Number n when !(n instanceof BigDecimal) && !(n instanceof Double) -> n.longValue();
      default -> o;
    };
  }

  private static String shortly(Object o) {
    String s = String.valueOf(o);
    return s.length() > 80 ? s.substring(0, 80) + "...(" + s.length() + " chars)" : s;
  }

  private static Field nullable(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }
}
