package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.Any;
import dev.lake.engine.Version;
import dev.lake.sql.TableName;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.junit.jupiter.api.Test;

class TicketCodecTest {

  @Test
  void queryTicketRoundTripsSqlAndPins() {
    Map<TableName, Version> pins = Map.of(
        new TableName("demo", "episodes"), Version.of(7),
        new TableName("démo", "frames"), Version.of(0));
    String sql = "SELECT * FROM demo.episodes e JOIN \"démo\".frames f ON e.id = f.id -- ü";
    TicketCodec.Ticket decoded = TicketCodec.decodeTicket(TicketCodec.encodeQuery(sql, pins));
    TicketCodec.QueryTicket query = assertInstanceOf(TicketCodec.QueryTicket.class, decoded);
    assertEquals(sql, query.sql());
    assertEquals(pins, query.pins());
  }

  @Test
  void queryTicketCarriesTheSessionDefaultSchema() {
    Map<TableName, Version> pins = Map.of(new TableName("lab", "shared"), Version.of(2));
    byte[] ticket = TicketCodec.encodeQuery("SELECT * FROM shared", pins, "lab");
    assertEquals(new TicketCodec.QueryTicket("SELECT * FROM shared", pins, "lab"),
        TicketCodec.decodeTicket(ticket));
    assertEquals(new TicketCodec.QueryTicket("SELECT 1", Map.of(), (String) null),
        TicketCodec.decodeTicket(TicketCodec.encodeQuery("SELECT 1", Map.of())));
    for (int length = 0; length < ticket.length; length++) {
      byte[] truncated = Arrays.copyOf(ticket, length);
      if (length == ticket.length - "lab".length() - 2) {
        continue; // exactly the ticket without a default schema, which is valid
      }
      assertThrows(TicketCodec.InvalidTicketException.class, () -> TicketCodec.decodeTicket(truncated),
          "length " + length);
    }
    byte[] emptySchema = Arrays.copyOf(TicketCodec.encodeQuery("SELECT 1", Map.of()),
        TicketCodec.encodeQuery("SELECT 1", Map.of()).length + 2);
    assertThrows(TicketCodec.InvalidTicketException.class, () -> TicketCodec.decodeTicket(emptySchema));
  }

  @Test
  void commandTicketRoundTripsTheCommand() {
    Any command = Any.pack(FlightSql.CommandGetTables.newBuilder()
        .setDbSchemaFilterPattern("de%").setIncludeSchema(true).build());
    TicketCodec.Ticket decoded = TicketCodec.decodeTicket(TicketCodec.encodeCommand(command));
    assertEquals(command, assertInstanceOf(TicketCodec.CommandTicket.class, decoded).command());
  }

  @Test
  void everyTruncationOfATicketIsInvalid() {
    byte[] ticket = TicketCodec.encodeQuery("SELECT 1",
        Map.of(new TableName("a", "b"), Version.of(3)));
    for (int length = 0; length < ticket.length; length++) {
      byte[] truncated = Arrays.copyOf(ticket, length);
      TicketCodec.InvalidTicketException e = assertThrows(
          TicketCodec.InvalidTicketException.class, () -> TicketCodec.decodeTicket(truncated));
      assertEquals("invalid ticket", e.getMessage());
    }
  }

  @Test
  void garbageTrailingBytesAndOtherFormatsAreInvalid() {
    byte[] good = TicketCodec.encodeQuery("SELECT 1", Map.of());
    byte[] trailing = Arrays.copyOf(good, good.length + 1);
    byte[] otherFormat = good.clone();
    otherFormat[3] = 99;
    for (byte[] bad : new byte[][] {
        "garbage".getBytes(StandardCharsets.UTF_8), trailing, otherFormat, new byte[0],
        TicketCodec.encodeHandle("SELECT 1")}) {
      assertThrows(TicketCodec.InvalidTicketException.class, () -> TicketCodec.decodeTicket(bad));
    }
  }

  @Test
  void handleRoundTripsAndRejectsTickets() {
    assertEquals("SELECT 42", TicketCodec.decodeHandle(TicketCodec.encodeHandle("SELECT 42")));
    assertThrows(TicketCodec.InvalidTicketException.class,
        () -> TicketCodec.decodeHandle(TicketCodec.encodeQuery("SELECT 1", Map.of())));
    assertThrows(TicketCodec.InvalidTicketException.class,
        () -> TicketCodec.decodeHandle(new byte[] {'L', 'K', 'P', 1, (byte) 0xff}));
  }

  @Test
  void whatWouldNotDecodeIsNeverEncoded() {
    String atLimit = "x".repeat(TicketCodec.MAX_TEXT);
    assertEquals(atLimit, TicketCodec.decodeHandle(TicketCodec.encodeHandle(atLimit)));
    TicketCodec.Ticket ticket = TicketCodec.decodeTicket(TicketCodec.encodeQuery(atLimit, Map.of()));
    assertEquals(atLimit, ((TicketCodec.QueryTicket) ticket).sql());
    String over = atLimit + "x";
    assertThrows(TicketCodec.TicketTooLargeException.class, () -> TicketCodec.encodeQuery(over, Map.of()));
    assertThrows(TicketCodec.TicketTooLargeException.class, () -> TicketCodec.encodeHandle(over));
    assertThrows(TicketCodec.TicketTooLargeException.class, () -> TicketCodec.encodeQuery("SELECT 1",
        Map.of(new dev.lake.sql.TableName("s", "t".repeat(70_000)), dev.lake.engine.Version.of(1))));
  }
}
