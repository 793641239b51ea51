package dev.lake.cli.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The three output formats over real Arrow batches; the allocator must close clean. */
class PrintersTest {

  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void closeAllocator() {
    allocator.close(); // throws if a test leaked a buffer
  }

  private static String print(ResultFormat format, VectorSchemaRoot... batches) {
    StringWriter text = new StringWriter();
    ResultPrinter printer = format.printer(new PrintWriter(text));
    printer.begin(batches[0].getSchema());
    for (VectorSchemaRoot batch : batches) {
      printer.rows(batch);
    }
    printer.end();
    return text.toString();
  }

  /** id BIGINT, name VARCHAR, reward DECIMAL(10,3): rows (1, robot-01, 0.500), (22, NULL, NULL). */
  private VectorSchemaRoot episodes() {
    VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
        Field.notNullable("id", new ArrowType.Int(64, true)),
        Field.nullable("name", ArrowType.Utf8.INSTANCE),
        Field.nullable("reward", new ArrowType.Decimal(10, 3, 128)))), allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    DecimalVector reward = (DecimalVector) root.getVector("reward");
    id.setSafe(0, 1);
    name.setSafe(0, "robot-01".getBytes(StandardCharsets.UTF_8));
    reward.setSafe(0, new BigDecimal("0.500"));
    id.setSafe(1, 22);
    name.setNull(1);
    reward.setNull(1);
    root.setRowCount(2);
    return root;
  }

  private VectorSchemaRoot strings(String column, String... values) {
    VectorSchemaRoot root = VectorSchemaRoot.create(
        new Schema(List.of(Field.nullable(column, ArrowType.Utf8.INSTANCE))), allocator);
    root.allocateNew();
    VarCharVector vector = (VarCharVector) root.getVector(0);
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        vector.setNull(i);
      } else {
        vector.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
      }
    }
    root.setRowCount(values.length);
    return root;
  }

  @Test
  void tableAlignsColumnsRightAlignsNumbersAndShowsNull() {
    try (VectorSchemaRoot root = episodes()) {
      assertEquals("""
           id | name     | reward
          ----+----------+--------
            1 | robot-01 |  0.500
           22 | NULL     |   NULL
          """, print(ResultFormat.TABLE, root));
    }
  }

  @Test
  void tableNeverWrapsOrCutsALongValueAndEscapesLineBreaks() {
    String longValue = "x".repeat(300);
    try (VectorSchemaRoot root = strings("s", longValue, "two\nlines\tand tab")) {
      String table = print(ResultFormat.TABLE, root);
      List<String> lines = table.lines().toList();
      assertEquals(4, lines.size(), table);
      assertEquals(" " + longValue, lines.get(2));
      assertEquals(" two\\nlines\\tand tab", lines.get(3));
      assertEquals(302, lines.get(1).length());
    }
  }

  @Test
  void tableMeasuresWideAndCombiningCharactersByTheColumnsTheyTake() {
    // 日本語 takes six columns, "e" + a combining acute accent one.
    try (VectorSchemaRoot root = strings("name", "日本語", "e\u0301", "abcdefg")) {
      assertEquals("""
           name
          ---------
           日本語
           e\u0301
           abcdefg
          """, print(ResultFormat.TABLE, root));
      assertEquals(6, DisplayWidth.of("日本語"));
      assertEquals(1, DisplayWidth.of("e\u0301"));
    }
    try (VectorSchemaRoot root = strings("名前", "a")) {
      String table = print(ResultFormat.TABLE, root);
      assertEquals(List.of(" 名前", "------", " a"), table.lines().toList());
    }
  }

  @Test
  void tableKeepsWidthsAcrossBatchesAndWidensForALaterWiderBlock() {
    try (VectorSchemaRoot first = strings("s", "a", "bb"); VectorSchemaRoot second = strings("s", "cccc")) {
      StringWriter text = new StringWriter();
      TablePrinter printer = new TablePrinter(new PrintWriter(text), 2);
      printer.begin(first.getSchema());
      printer.rows(first);
      printer.rows(second);
      printer.end();
      assertEquals(List.of(" s", "----", " a", " bb", " cccc"), text.toString().lines().toList());
    }
  }

  @Test
  void tableOfNoRowsStillShowsTheHeader() {
    try (VectorSchemaRoot root = episodes()) {
      root.setRowCount(0);
      assertEquals(List.of(" id | name | reward", "----+------+--------"),
          print(ResultFormat.TABLE, root).lines().toList());
    }
  }

  @Test
  void csvQuotesAsRfc4180AndKeepsNullApartFromTheEmptyString() {
    try (VectorSchemaRoot root = strings("a,b", "plain", "with,comma", "say \"hi\"", "two\nlines",
        "cr\rhere", "", null, " spaced ")) {
      assertEquals("\"a,b\"\nplain\n\"with,comma\"\n\"say \"\"hi\"\"\"\n\"two\nlines\"\n\"cr\rhere\"\n\"\"\n\n spaced \n",
          print(ResultFormat.CSV, root));
    }
  }

  @Test
  void csvWritesNumbersPlainAndNullsEmpty() {
    try (VectorSchemaRoot root = episodes()) {
      assertEquals("id,name,reward\n1,robot-01,0.500\n22,,\n", print(ResultFormat.CSV, root));
    }
  }

  @Test
  void jsonLinesWritesOneObjectPerRowWithTypedValues() {
    try (VectorSchemaRoot root = episodes()) {
      assertEquals("{\"id\":1,\"name\":\"robot-01\",\"reward\":0.500}\n"
          + "{\"id\":22,\"name\":null,\"reward\":null}\n", print(ResultFormat.JSON, root));
    }
  }

  @Test
  void jsonEscapesQuotesBackslashesAndControlCharactersAndKeepsUnicode() {
    try (VectorSchemaRoot root = strings("k\"ey", "q\"b\\s/\n\r\t\b\f\u0001\u007f 日本 \u2028")) {
      assertEquals("{\"k\\\"ey\":\"q\\\"b\\\\s/\\n\\r\\t\\b\\f\\u0001\\u007f 日本 \\u2028\"}\n",
          print(ResultFormat.JSON, root));
    }
  }

  @Test
  void scalarTypesRenderReadablyInEveryFormat() {
    Schema schema = new Schema(List.of(
        Field.nullable("ok", ArrowType.Bool.INSTANCE),
        Field.nullable("f", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
        Field.nullable("u", new ArrowType.Int(64, false)),
        Field.nullable("bytes", ArrowType.Binary.INSTANCE),
        Field.nullable("day", new ArrowType.Date(DateUnit.DAY)),
        Field.nullable("at", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
        Field.nullable("local", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      root.allocateNew();
      ((BitVector) root.getVector("ok")).setSafe(0, 1);
      ((Float8Vector) root.getVector("f")).setSafe(0, Double.NaN);
      ((UInt8Vector) root.getVector("u")).setSafe(0, -1L);
      ((VarBinaryVector) root.getVector("bytes")).setSafe(0, new byte[] {0x0a, (byte) 0xff});
      ((DateDayVector) root.getVector("day")).setSafe(0, 20_458); // 2026-01-05
      ((TimeStampMicroTZVector) root.getVector("at")).setSafe(0, 1_767_600_000_250_000L);
      ((TimeStampMicroVector) root.getVector("local")).setSafe(0, 1_767_600_000_000_000L);
      root.setRowCount(1);
      assertEquals("true,NaN,18446744073709551615,\\x0aff,2026-01-05,2026-01-05 08:00:00.25Z,2026-01-05 08:00:00",
          print(ResultFormat.CSV, root).lines().toList().get(1));
      assertEquals("{\"ok\":true,\"f\":\"NaN\",\"u\":18446744073709551615,\"bytes\":\"Cv8=\","
          + "\"day\":\"2026-01-05\",\"at\":\"2026-01-05 08:00:00.25Z\",\"local\":\"2026-01-05 08:00:00\"}\n",
          print(ResultFormat.JSON, root));
    }
  }

  @Test
  void nestedStructAndListColumnsRenderAsJsonInTheTableAndAsObjectsInJson() {
    Field video = new Field("video", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
        Field.nullable("uri", ArrowType.Utf8.INSTANCE),
        Field.nullable("frames", new ArrowType.Int(32, true))));
    Field tags = new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE),
        List.of(Field.nullable("item", ArrowType.Utf8.INSTANCE)));
    Field embedding = new Field("embedding", FieldType.nullable(new ArrowType.FixedSizeList(2)),
        List.of(Field.nullable("item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(video, tags, embedding)), allocator)) {
      root.allocateNew();
      StructVector struct = (StructVector) root.getVector("video");
      ((VarCharVector) struct.getChild("uri")).setSafe(0, "s3://b/ep1.mp4".getBytes(StandardCharsets.UTF_8));
      ((IntVector) struct.getChild("frames")).setNull(0);
      struct.setIndexDefined(0);
      struct.setNull(1);
      ListVector list = (ListVector) root.getVector("tags");
      UnionListWriter writer = list.getWriter();
      writer.setPosition(0);
      writer.startList();
      for (String tag : new String[] {"pick", "say \"hi\""}) {
        byte[] bytes = tag.getBytes(StandardCharsets.UTF_8);
        try (var buffer = allocator.buffer(bytes.length)) {
          buffer.setBytes(0, bytes);
          writer.varChar().writeVarChar(0, bytes.length, buffer);
        }
      }
      writer.endList();
      writer.setPosition(1);
      writer.startList();
      writer.endList();
      FixedSizeListVector fixed = (FixedSizeListVector) root.getVector("embedding");
      Float8Vector items = (Float8Vector) fixed.getDataVector();
      fixed.setNotNull(0);
      items.setSafe(0, 0.5);
      items.setSafe(1, -1.0);
      fixed.setNull(1);
      items.setNull(2);
      items.setNull(3);
      items.setValueCount(4);
      root.setRowCount(2);
      assertEquals("""
           video                                     | tags                   | embedding
          -------------------------------------------+------------------------+-------------
           {"uri": "s3://b/ep1.mp4", "frames": null} | ["pick", "say \\"hi\\""] | [0.5, -1.0]
           NULL                                      | []                     | NULL
          """,
          print(ResultFormat.TABLE, root));
      assertEquals("{\"video\":{\"uri\":\"s3://b/ep1.mp4\",\"frames\":null},\"tags\":[\"pick\",\"say \\\"hi\\\"\"],"
          + "\"embedding\":[0.5,-1.0]}\n{\"video\":null,\"tags\":[],\"embedding\":null}\n",
          print(ResultFormat.JSON, root));
    }
  }

  @Test
  void formatNamesParseInAnyCase() {
    Function<String, ResultFormat> parse = new ResultFormat.Converter()::convert;
    assertEquals(ResultFormat.CSV, parse.apply("CSV"));
    assertEquals(ResultFormat.JSON, parse.apply("json"));
    assertEquals(ResultFormat.TABLE, parse.apply(" Table "));
  }
}
