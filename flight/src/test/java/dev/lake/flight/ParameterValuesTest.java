package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import dev.lake.engine.Version;
import dev.lake.sql.TableName;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The bound parameter rows a handle and a ticket carry, and the handle and ticket layouts with them. */
class ParameterValuesTest {

  private static final List<List<Object>> ROWS = List.of(
      Arrays.asList(7L, 42, (short) -3, (byte) 1, 2.5, 1.5f, true, "röbot-21 🤖",
          new BigDecimal("-12345678901234567890.123"), LocalDate.of(2024, 2, 29),
          Instant.parse("2024-01-01T10:00:00.123456Z"), new byte[] {0, 1, 2}),
      Arrays.asList(null, null, null, null, null, null, false, "", BigDecimal.ZERO,
          LocalDate.of(1969, 12, 31), Instant.EPOCH, new byte[0]));

  @Test
  void everyKindOfValueRoundTrips() {
    List<List<Object>> decoded = ParameterValues.decode(ParameterValues.encode(ROWS));
    assertEquals(ROWS.size(), decoded.size());
    for (int r = 0; r < ROWS.size(); r++) {
      List<Object> expected = ROWS.get(r);
      for (int c = 0; c < expected.size(); c++) {
        if (expected.get(c) instanceof byte[] bytes) {
          assertArrayEquals(bytes, (byte[]) decoded.get(r).get(c));
        } else {
          assertEquals(expected.get(c), decoded.get(r).get(c), "row " + r + " column " + c);
        }
      }
    }
  }

  @Test
  void everyTruncationAndTrailingByteIsInvalid() {
    byte[] good = ParameterValues.encode(ROWS).toByteArray();
    for (int length = 0; length < good.length; length++) {
      ByteString truncated = ByteString.copyFrom(good, 0, length);
      TicketCodec.InvalidTicketException e = assertThrows(TicketCodec.InvalidTicketException.class,
          () -> ParameterValues.decode(truncated));
      assertEquals("invalid bound parameter values", e.getMessage());
    }
    byte[] trailing = Arrays.copyOf(good, good.length + 1);
    assertThrows(TicketCodec.InvalidTicketException.class,
        () -> ParameterValues.decode(ByteString.copyFrom(trailing)));
  }

  @Test
  void hostileCountsTagsAndTextAreInvalidWithoutAllocatingForThem() {
    for (byte[] bad : new byte[][] {
        {0x7f, -1, -1, -1, 0, 1},           // two billion rows
        {0, 0, 0, 1, 0, 1, 99},             // unknown tag
        {0, 0, 0, 1, 0, 1, 7, 2},           // a boolean that is 2
        {0, 0, 0, 1, 0, 1, 8, 0, 0, 0, 2, (byte) 0xc3, 0x28}, // invalid UTF-8
        {0, 0, 0, 1, 0, 1, 8, 0x7f, -1, -1, -1}, // a string longer than the bytes
        {0, 0, 0, 1, 0, 1, 10, 0x7f, -1, -1, -1, -1, -1, -1, -1}}) { // a date out of range
      assertThrows(TicketCodec.InvalidTicketException.class,
          () -> ParameterValues.decode(ByteString.copyFrom(bad)), Arrays.toString(bad));
    }
  }

  @Test
  void aHandleAndATicketCarryTheirRows() {
    ByteString values = ParameterValues.encode(ROWS);
    String sql = "SELECT id FROM demo.episodes WHERE id = ? -- ü";
    TicketCodec.Handle handle = TicketCodec.decodePreparedHandle(TicketCodec.encodeHandle(sql, values));
    assertEquals(new TicketCodec.Handle(sql, values), handle);
    assertEquals(sql, TicketCodec.decodeHandle(TicketCodec.encodeHandle(sql, values)));
    assertEquals(new TicketCodec.Handle(sql, ByteString.EMPTY),
        TicketCodec.decodePreparedHandle(TicketCodec.encodeHandle(sql)));
    Map<TableName, Version> pins = Map.of(new TableName("demo", "episodes"), Version.of(4));
    TicketCodec.QueryTicket ticket = assertInstanceOf(TicketCodec.QueryTicket.class,
        TicketCodec.decodeTicket(TicketCodec.encodeQuery(sql, pins, values)));
    assertEquals(new TicketCodec.QueryTicket(sql, pins, values), ticket);
    byte[] encoded = TicketCodec.encodeQuery(sql, pins, values);
    for (int length = 0; length < encoded.length; length += 7) {
      byte[] truncated = Arrays.copyOf(encoded, length);
      assertThrows(TicketCodec.InvalidTicketException.class, () -> TicketCodec.decodeTicket(truncated));
    }
    byte[] boundHandle = TicketCodec.encodeHandle(sql, values);
    byte[] lying = boundHandle.clone();
    lying[4] = 0x7f; // an SQL length far past the end
    assertThrows(TicketCodec.InvalidTicketException.class, () -> TicketCodec.decodePreparedHandle(lying));
  }
}
