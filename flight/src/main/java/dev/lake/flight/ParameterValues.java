package dev.lake.flight;

import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The rows of parameter values bound to a prepared statement, as the bytes its handle and tickets
 * carry. Layout, big-endian: {@code rows(4) columns(2)} then, row by row, one tagged value per
 * column: {@code 0} NULL, {@code 1} BIGINT(8), {@code 2} INTEGER(4), {@code 3} SMALLINT(2),
 * {@code 4} TINYINT(1), {@code 5} DOUBLE(8), {@code 6} REAL(4), {@code 7} BOOLEAN(1),
 * {@code 8} VARCHAR len(4) UTF-8, {@code 9} DECIMAL scale(4) len(2) unscaled two's complement,
 * {@code 10} DATE days(8), {@code 11} TIMESTAMP seconds(8) nanos(4), {@code 12} VARBINARY
 * len(4) bytes.
 *
 * <p>A handle goes back and forth through every client, so the encoding is bounded: at most
 * {@link #MAX_ROWS} rows and {@link #MAX_BYTES} bytes (a statement bound to more is refused with
 * RESOURCE_EXHAUSTED when it is bound).
 */
final class ParameterValues {
  private ParameterValues() {}

  /** The most parameter rows one DoPut may bind: each row is one execution of the query. */
  static final int MAX_ROWS = 10_000;
  /** The most bytes the encoded rows may take (they travel in the handle and the ticket). */
  static final int MAX_BYTES = 1 << 20;

  private static final int MAX_COLUMNS = 65_535;

  /**
   * Encodes rows of equal width whose values are of the classes above (or null).
   *
   * @throws IllegalArgumentException for a value of another class
   */
  static ByteString encode(List<List<Object>> rows) {
    int columns = rows.isEmpty() ? 0 : rows.getFirst().size();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(rows.size());
      out.writeShort(columns);
      for (List<Object> row : rows) {
        if (row.size() != columns) {
          throw new IllegalArgumentException("rows of different widths");
        }
        for (Object value : row) {
          write(out, value);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ByteString.copyFrom(bytes.toByteArray());
  }

  private static void write(DataOutputStream out, Object value) throws IOException {
    switch (value) {
      case null -> out.writeByte(0);
      case Long l -> {
        out.writeByte(1);
        out.writeLong(l);
      }
      case Integer i -> {
        out.writeByte(2);
        out.writeInt(i);
      }
      case Short s -> {
        out.writeByte(3);
        out.writeShort(s);
      }
      case Byte b -> {
        out.writeByte(4);
        out.writeByte(b);
      }
      case Double d -> {
        out.writeByte(5);
        out.writeDouble(d);
      }
      case Float f -> {
        out.writeByte(6);
        out.writeFloat(f);
      }
      case Boolean b -> {
        out.writeByte(7);
        out.writeBoolean(b);
      }
      case String s -> {
        byte[] text = s.getBytes(StandardCharsets.UTF_8);
        out.writeByte(8);
        out.writeInt(text.length);
        out.write(text);
      }
      case BigDecimal d -> {
        byte[] unscaled = d.unscaledValue().toByteArray();
        out.writeByte(9);
        out.writeInt(d.scale());
        out.writeShort(unscaled.length);
        out.write(unscaled);
      }
      case LocalDate d -> {
        out.writeByte(10);
        out.writeLong(d.toEpochDay());
      }
      case Instant i -> {
        out.writeByte(11);
        out.writeLong(i.getEpochSecond());
        out.writeInt(i.getNano());
      }
      case byte[] b -> {
        out.writeByte(12);
        out.writeInt(b.length);
        out.write(b);
      }
      default -> throw new IllegalArgumentException("cannot encode a " + value.getClass().getSimpleName());
    }
  }

  /**
   * Decodes what {@link #encode} wrote.
   *
   * @throws TicketCodec.InvalidTicketException for anything else: truncated, trailing or unknown bytes, too many
   *     rows, invalid UTF-8, out-of-range dates
   */
  static List<List<Object>> decode(ByteString encoded) {
    if (encoded.size() > MAX_BYTES) {
      throw malformed();
    }
    try {
      ByteBuffer in = encoded.asReadOnlyByteBuffer();
      int rows = in.getInt();
      int columns = Short.toUnsignedInt(in.getShort());
      if (rows < 0 || rows > MAX_ROWS || columns > MAX_COLUMNS
          || (long) rows * columns > in.remaining()) {
        throw malformed();
      }
      List<List<Object>> out = new ArrayList<>(rows);
      for (int r = 0; r < rows; r++) {
        Object[] row = new Object[columns];
        for (int c = 0; c < columns; c++) {
          row[c] = read(in);
        }
        out.add(Arrays.asList(row));
      }
      if (in.hasRemaining()) {
        throw malformed();
      }
      return out;
    } catch (BufferUnderflowException | CharacterCodingException | ArithmeticException
        | java.time.DateTimeException | NumberFormatException e) {
      throw malformed();
    }
  }

  private static Object read(ByteBuffer in) throws CharacterCodingException {
    byte tag = in.get();
    return switch (tag) {
      case 0 -> null;
      case 1 -> in.getLong();
      case 2 -> in.getInt();
      case 3 -> in.getShort();
      case 4 -> in.get();
      case 5 -> in.getDouble();
      case 6 -> in.getFloat();
      case 7 -> switch (in.get()) {
        case 0 -> false;
        case 1 -> true;
        default -> throw malformed();
      };
      case 8 -> StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes(in, in.getInt())))
          .toString();
      case 9 -> {
        int scale = in.getInt();
        byte[] unscaled = bytes(in, Short.toUnsignedInt(in.getShort()));
        if (unscaled.length == 0) {
          throw malformed();
        }
        yield new BigDecimal(new BigInteger(unscaled), scale);
      }
      case 10 -> LocalDate.ofEpochDay(in.getLong());
      case 11 -> Instant.ofEpochSecond(in.getLong(), in.getInt());
      case 12 -> bytes(in, in.getInt());
      default -> throw malformed();
    };
  }

  private static TicketCodec.InvalidTicketException malformed() {
    return new TicketCodec.InvalidTicketException("bound parameter values");
  }

  private static byte[] bytes(ByteBuffer in, int length) {
    if (length < 0 || length > in.remaining()) {
      throw new BufferUnderflowException();
    }
    byte[] out = new byte[length];
    in.get(out);
    return out;
  }
}
