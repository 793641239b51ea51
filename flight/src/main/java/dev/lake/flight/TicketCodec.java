package dev.lake.flight;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lake.engine.Version;
import dev.lake.sql.TableName;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Encodes and decodes the opaque bytes lake hands to clients: {@code DoGet} tickets and
 * prepared-statement handles. Both are self-contained (they carry the SQL and, for tickets, the
 * exact table versions planned), so any replica can serve them and the server keeps no state.
 *
 * <p>This is the only class that knows the byte layout, so sealing the bytes (encryption and
 * authentication of the claims) replaces this class and nothing else. Layout, big-endian:
 *
 * <pre>
 *   ticket: "LKT" format(1) kind(1) body
 *     kind 1 (query):   sqlLen(4) sql(UTF-8) pinCount(4) { schemaLen(2) schema tableLen(2) table version(8) }*
 *     kind 2 (command): anyLen(4) Any-packed Flight SQL command
 *     kind 3 (query with bound parameters): as kind 1, then valuesLen(4) values
 *     kinds 1 and 3 end with an optional [ defaultSchemaLen(2) defaultSchema ] (the session's,
 *     for bare table names)
 *   handle: "LKP" format(1) sql(UTF-8, the rest)
 *   handle with bound parameters: "LKB" format(1) sqlLen(4) sql(UTF-8) values(the rest)
 * </pre>
 *
 * <p>{@code values} are the rows of parameter values a client bound with {@code DoPut}, in
 * {@link ParameterValues}' encoding; the handle {@code DoPut} returns carries them, so the
 * {@code GetFlightInfo} and {@code DoGet} that follow need nothing kept on a server.
 */
final class TicketCodec {

  static final byte FORMAT = 1;
  private static final byte[] TICKET_MAGIC = {'L', 'K', 'T'};
  private static final byte[] HANDLE_MAGIC = {'L', 'K', 'P'};
  private static final byte[] BOUND_HANDLE_MAGIC = {'L', 'K', 'B'};
  private static final byte KIND_BOUND_QUERY = 3;
  private static final byte KIND_QUERY = 1;
  private static final byte KIND_COMMAND = 2;
  /**
   * The most bytes of SQL or of a command a ticket or handle carries. Decoding refuses more before
   * allocating (such a ticket is corrupt or hostile), and encoding refuses to write what decoding
   * would refuse, so whatever {@code GetFlightInfo} answers with a ticket can be redeemed. The
   * server's statement limit is at most this ({@link LakeFlightServer.Builder#statementLimits}).
   */
  static final int MAX_TEXT = 16 << 20;
  static final int MAX_PINS = 65_536;
  private static final int MAX_NAME = 0xffff;

  private TicketCodec() {}

  /** What a ticket asks {@code DoGet} to stream. */
  sealed interface Ticket permits QueryTicket, CommandTicket {}

  /**
   * Run {@code sql} reading every table at its pinned version, once per row of the bound
   * {@code parameters} ({@link ParameterValues}' encoding; empty for a statement without any),
   * bare table names looked up in {@code defaultSchema} (null: none) first.
   */
  record QueryTicket(String sql, Map<TableName, Version> pins, ByteString parameters,
      String defaultSchema) implements Ticket {
    QueryTicket {
      Objects.requireNonNull(sql, "sql");
      Objects.requireNonNull(parameters, "parameters");
      pins = Map.copyOf(pins);
    }

    QueryTicket(String sql, Map<TableName, Version> pins) {
      this(sql, pins, ByteString.EMPTY, null);
    }

    QueryTicket(String sql, Map<TableName, Version> pins, ByteString parameters) {
      this(sql, pins, parameters, null);
    }

    QueryTicket(String sql, Map<TableName, Version> pins, String defaultSchema) {
      this(sql, pins, ByteString.EMPTY, defaultSchema);
    }
  }

  /** A prepared statement: its SQL and the parameter rows bound to it (empty before DoPut). */
  record Handle(String sql, ByteString parameters) {
    Handle {
      Objects.requireNonNull(sql, "sql");
      Objects.requireNonNull(parameters, "parameters");
    }
  }

  /** Answer a Flight SQL metadata command (GetTables, GetSqlInfo...) as of the DoGet. */
  record CommandTicket(Any command) implements Ticket {
    CommandTicket {
      Objects.requireNonNull(command, "command");
    }
  }

  /** Thrown for bytes that are not a ticket or handle this codec wrote. */
  static final class InvalidTicketException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    InvalidTicketException(String what) {
      super("invalid " + what);
    }
  }

  /**
   * Thrown when what a ticket or handle would carry is larger than {@link #decodeTicket} or
   * {@link #decodeHandle} accept, so no unredeemable ticket is ever handed out.
   */
  static final class TicketTooLargeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TicketTooLargeException(String message) {
      super(message);
    }
  }

  /**
   * @throws TicketTooLargeException if the SQL is over {@link #MAX_TEXT} bytes, there are over
   *     {@link #MAX_PINS} pins or a pinned name is over 65,535 bytes
   */
  static byte[] encodeQuery(String sql, Map<TableName, Version> pins) {
    return encodeQuery(sql, pins, ByteString.EMPTY, null);
  }

  /** A query ticket that runs {@code sql} once per row of the bound {@code parameters}. */
  static byte[] encodeQuery(String sql, Map<TableName, Version> pins, ByteString parameters) {
    return encodeQuery(sql, pins, parameters, null);
  }

  /**
   * A query ticket whose bare table names resolve in {@code defaultSchema} (null: none) first.
   *
   * @throws TicketTooLargeException as {@link #encodeQuery(String, Map)}, or if the default
   *     schema's name is over 65,535 bytes
   */
  static byte[] encodeQuery(String sql, Map<TableName, Version> pins, String defaultSchema) {
    return encodeQuery(sql, pins, ByteString.EMPTY, defaultSchema);
  }

  /**
   * A query ticket that runs {@code sql} once per row of the bound {@code parameters} (empty:
   * once), bare table names looked up in {@code defaultSchema} (null: none) first.
   *
   * @throws TicketTooLargeException if the ticket would be larger than {@link #decodeTicket} takes
   */
  static byte[] encodeQuery(String sql, Map<TableName, Version> pins, ByteString parameters,
      String defaultSchema) {
    byte[] text = sql.getBytes(StandardCharsets.UTF_8);
    checkText(text.length, "the statement");
    checkText(parameters.size(), "the bound parameter values");
    if (pins.size() > MAX_PINS) {
      throw new TicketTooLargeException("the statement reads " + pins.size()
          + " tables; a ticket pins at most " + MAX_PINS);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + text.length + parameters.size());
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.write(TICKET_MAGIC);
      out.writeByte(FORMAT);
      out.writeByte(parameters.isEmpty() ? KIND_QUERY : KIND_BOUND_QUERY);
      out.writeInt(text.length);
      out.write(text);
      out.writeInt(pins.size());
      for (Map.Entry<TableName, Version> pin : pins.entrySet()) {
        writeShortText(out, pinnedSchema(pin.getKey()));
        writeShortText(out, pin.getKey().table());
        out.writeLong(pin.getValue().number());
      }
      if (!parameters.isEmpty()) {
        out.writeInt(parameters.size());
        parameters.writeTo(out);
      }
      if (defaultSchema != null) {
        writeShortText(out, defaultSchema);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** @throws TicketTooLargeException if the command is over {@link #MAX_TEXT} bytes */
  static byte[] encodeCommand(Any command) {
    byte[] body = command.toByteArray();
    checkText(body.length, "the command");
    ByteBuffer buffer = ByteBuffer.allocate(TICKET_MAGIC.length + 2 + 4 + body.length);
    buffer.put(TICKET_MAGIC).put(FORMAT).put(KIND_COMMAND).putInt(body.length).put(body);
    return buffer.array();
  }

  /**
   * Decodes a ticket.
   *
   * @throws InvalidTicketException if the bytes are garbage, truncated, of another format version
   *     or carry trailing bytes
   */
  static Ticket decodeTicket(byte[] ticket) {
    try {
      ByteBuffer in = ByteBuffer.wrap(ticket);
      expectMagic(in, TICKET_MAGIC, "ticket");
      byte kind = in.get();
      Ticket decoded = switch (kind) {
        case KIND_QUERY -> withDefaultSchema(decodeQuery(in), ByteString.EMPTY, in);
        case KIND_BOUND_QUERY -> {
          QueryTicket query = decodeQuery(in);
          yield withDefaultSchema(query, ByteString.copyFrom(bytes(in, in.getInt())), in);
        }
        case KIND_COMMAND -> new CommandTicket(Any.parseFrom(bytes(in, in.getInt())));
        default -> throw new InvalidTicketException("ticket");
      };
      if (in.hasRemaining()) {
        throw new InvalidTicketException("ticket");
      }
      return decoded;
    } catch (BufferUnderflowException | IllegalArgumentException | InvalidProtocolBufferException
        | CharacterCodingException e) {
      throw new InvalidTicketException("ticket");
    }
  }

  /** @throws TicketTooLargeException if the SQL is over {@link #MAX_TEXT} bytes */
  static byte[] encodeHandle(String sql) {
    byte[] text = sql.getBytes(StandardCharsets.UTF_8);
    checkText(text.length, "the statement");
    return ByteBuffer.allocate(HANDLE_MAGIC.length + 1 + text.length)
        .put(HANDLE_MAGIC).put(FORMAT).put(text).array();
  }

  /** A handle carrying the parameter rows bound to {@code sql}. */
  static byte[] encodeHandle(String sql, ByteString parameters) {
    if (parameters.isEmpty()) {
      return encodeHandle(sql);
    }
    byte[] text = sql.getBytes(StandardCharsets.UTF_8);
    ByteBuffer out = ByteBuffer.allocate(BOUND_HANDLE_MAGIC.length + 1 + 4 + text.length + parameters.size())
        .put(BOUND_HANDLE_MAGIC).put(FORMAT).putInt(text.length).put(text);
    parameters.copyTo(out);
    return out.array();
  }

  /**
   * Decodes a prepared-statement handle to its SQL.
   *
   * @throws InvalidTicketException if the bytes are not a handle this codec wrote
   */
  static String decodeHandle(byte[] handle) {
    return decodePreparedHandle(handle).sql();
  }

  /**
   * Decodes a prepared-statement handle to its SQL and bound parameter rows.
   *
   * @throws InvalidTicketException if the bytes are not a handle this codec wrote
   */
  static Handle decodePreparedHandle(byte[] handle) {
    try {
      ByteBuffer in = ByteBuffer.wrap(handle);
      if (handle.length >= BOUND_HANDLE_MAGIC.length
          && Arrays.equals(Arrays.copyOf(handle, BOUND_HANDLE_MAGIC.length), BOUND_HANDLE_MAGIC)) {
        expectMagic(in, BOUND_HANDLE_MAGIC, "prepared statement handle");
        String sql = utf8(bytes(in, in.getInt()));
        return new Handle(sql, ByteString.copyFrom(bytes(in, in.remaining())));
      }
      expectMagic(in, HANDLE_MAGIC, "prepared statement handle");
      return new Handle(utf8(bytes(in, in.remaining())), ByteString.EMPTY);
    } catch (BufferUnderflowException | CharacterCodingException e) {
      throw new InvalidTicketException("prepared statement handle");
    }
  }

  /**
   * A pin's schema field: the schema of a {@code lake} table, {@code catalog NUL schema} for a
   * federated one (no SQL name the front end resolves holds NUL), so older tickets decode as
   * before and {@code lake.ops.t} and {@code iceberg.ops.t} stay different pins.
   */
  private static String pinnedSchema(TableName name) {
    return name.isLake() ? name.schema() : name.catalog() + CATALOG_SEPARATOR + name.schema();
  }

  private static TableName pinnedName(String schema, String table) {
    int separator = schema.indexOf(CATALOG_SEPARATOR);
    return separator < 0 ? new TableName(schema, table)
        : new TableName(schema.substring(0, separator), schema.substring(separator + 1), table);
  }

  private static final char CATALOG_SEPARATOR = '\0';

  private static QueryTicket decodeQuery(ByteBuffer in) throws CharacterCodingException {
    String sql = utf8(bytes(in, in.getInt()));
    int count = in.getInt();
    if (count < 0 || count > MAX_PINS) {
      throw new InvalidTicketException("ticket");
    }
    Map<TableName, Version> pins = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      String schema = utf8(bytes(in, Short.toUnsignedInt(in.getShort())));
      String table = utf8(bytes(in, Short.toUnsignedInt(in.getShort())));
      pins.put(pinnedName(schema, table), Version.of(in.getLong()));
    }
    return new QueryTicket(sql, pins);
  }

  private static QueryTicket withDefaultSchema(QueryTicket query, ByteString parameters,
      ByteBuffer in) throws CharacterCodingException {
    String defaultSchema = null;
    if (in.hasRemaining()) {
      defaultSchema = utf8(bytes(in, Short.toUnsignedInt(in.getShort())));
      if (defaultSchema.isEmpty()) {
        throw new InvalidTicketException("ticket");
      }
    }
    return new QueryTicket(query.sql(), query.pins(), parameters, defaultSchema);
  }

  private static void expectMagic(ByteBuffer in, byte[] magic, String what) {
    byte[] actual = new byte[magic.length];
    in.get(actual);
    if (!Arrays.equals(actual, magic) || in.get() != FORMAT) {
      throw new InvalidTicketException(what);
    }
  }

  private static byte[] bytes(ByteBuffer in, int length) {
    if (length < 0 || length > MAX_TEXT || length > in.remaining()) {
      throw new BufferUnderflowException();
    }
    byte[] out = new byte[length];
    in.get(out);
    return out;
  }

  // Strict decoding: a ticket whose text is not valid UTF-8 was not written by this codec.
  private static String utf8(byte[] bytes) throws CharacterCodingException {
    return StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes))
        .toString();
  }

  private static void checkText(int bytes, String what) {
    if (bytes > MAX_TEXT) {
      throw new TicketTooLargeException(what + " is " + bytes + " bytes; a ticket carries at most "
          + MAX_TEXT + " bytes (ticket size)");
    }
  }

  private static void writeShortText(DataOutputStream out, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_NAME) {
      throw new TicketTooLargeException("a table or schema name of " + bytes.length
          + " bytes does not fit a ticket (at most " + MAX_NAME + ")");
    }
    out.writeShort(bytes.length);
    out.write(bytes);
  }
}
