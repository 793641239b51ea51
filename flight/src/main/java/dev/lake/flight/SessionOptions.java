package dev.lake.flight;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import dev.lake.catalog.CatalogCache;
import dev.lake.flight.auth.Cookies;
import dev.lake.sql.SqlCatalog;
import io.vertx.grpc.common.GrpcStatus;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.apache.arrow.flight.impl.Flight;

/**
 * Flight SQL session options ({@code SetSessionOptions}, {@code GetSessionOptions},
 * {@code CloseSession}, the Flight actions Arrow's clients send) without server state: the
 * options live in the session cookie {@value #COOKIE} itself, which the server sets on every
 * change and the client's cookie middleware sends back on every call (the stock JDBC driver
 * always has that middleware; ADBC with its {@code with_cookie_middleware} option). So any
 * replica can serve any call of a session, and closing a session just expires the cookie.
 *
 * <p>Options: {@code catalog} (only {@value SqlCatalog#LAKE}; the JDBC driver's {@code catalog}
 * connection property sends it) and {@code schema}, the schema where bare table names are looked
 * up first; it must exist when set. An option set to no value is removed. An unknown name is
 * refused as {@code INVALID_NAME}, a bad value as {@code INVALID_VALUE}, each in the result,
 * and the other options of the request still apply.
 *
 * <p>The cookie carries only what a client may set itself, so it needs no secrecy or signature:
 * a forged cookie gives nothing a {@code SetSessionOptions} call would not. It is checked as
 * strictly as a request: a version byte, length-prefixed entries, a CRC32C, at most {@value
 * #MAX_COOKIE_CHARS} characters, known names and well-formed values; anything else is {@code
 * INVALID_ARGUMENT} (CloseSession still clears it).
 */
final class SessionOptions {

  static final String SET = "SetSessionOptions";
  static final String GET = "GetSessionOptions";
  static final String CLOSE = "CloseSession";
  /** The cookie name Arrow's own session middleware uses. */
  static final String COOKIE = "arrow_flight_session_id";
  static final String CATALOG = "catalog";
  static final String SCHEMA = "schema";
  static final int MAX_COOKIE_CHARS = 1024;
  /** The call header naming a default schema, for clients without session options. */
  static final String SCHEMA_HEADER = "schema";

  private static final byte VERSION = 1;
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

  /** A session's options, by name; empty for a client without a session. */
  record Session(Map<String, String> options) {
    static final Session NONE = new Session(Map.of());

    Session {
      options = Map.copyOf(options);
    }

    /** The default schema for bare table names, or null. */
    String defaultSchema() {
      return options.get(SCHEMA);
    }
  }

  /**
   * What a call says about its session: its {@code cookie} headers and its {@value
   * #SCHEMA_HEADER} header (null: none). Clients that cannot set session options send the header
   * instead: the stock JDBC driver sends every connection property it does not know as a call
   * header (so {@code ?schema=robots} in its URL), ADBC Java its {@code
   * adbc.flight.sql.rpc.call_header.schema} option. Read on the event loop.
   */
  record CallHeaders(List<String> cookies, String schema) {
    static final CallHeaders NONE = new CallHeaders(List.of(), null);

    CallHeaders {
      cookies = List.copyOf(cookies);
    }

    static CallHeaders of(io.vertx.core.MultiMap headers) {
      return new CallHeaders(headers.getAll("cookie"), headers.get(SCHEMA_HEADER));
    }

    /**
     * The default schema for bare table names: the session option's, else the header's, else null.
     *
     * @throws io.vertx.grpc.server.StatusException INVALID_ARGUMENT for a malformed session
     *     cookie or a header that is not a schema name
     */
    String defaultSchema() {
      String option = session(cookies).defaultSchema();
      if (option != null || schema == null) {
        return option;
      }
      if (!IDENTIFIER.matcher(schema).matches()) {
        throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "the call header '" + SCHEMA_HEADER
            + "' is not a schema name (letters, digits and _, at most 128 characters)");
      }
      return schema;
    }
  }

  /** An action's results and the {@code set-cookie} header to send with them (null: none). */
  record Reply(List<Flight.Result> results, String setCookie) {}

  private final CatalogCache catalog;

  SessionOptions(CatalogCache catalog) {
    this.catalog = catalog;
  }

  static boolean handles(String actionType) {
    return SET.equals(actionType) || GET.equals(actionType) || CLOSE.equals(actionType);
  }

  /**
   * Runs a session action (on a worker: SetSessionOptions reads the registry).
   *
   * @param cookies the request's {@code cookie} header values
   * @throws io.vertx.grpc.server.StatusException INVALID_ARGUMENT for a body that is not the
   *     action's message or a malformed session cookie
   */
  Reply run(Flight.Action action, List<String> cookies) {
    switch (action.getType()) {
      case SET -> {
        Flight.SetSessionOptionsRequest request = parse(action, Flight.SetSessionOptionsRequest::parseFrom);
        Map<String, String> options = new TreeMap<>(session(cookies).options());
        Flight.SetSessionOptionsResult.Builder result = Flight.SetSessionOptionsResult.newBuilder();
        for (Map.Entry<String, Flight.SessionOptionValue> option : request.getSessionOptionsMap().entrySet()) {
          Flight.SetSessionOptionsResult.ErrorValue error = apply(options, option.getKey(), option.getValue());
          if (error != null) {
            result.putErrors(option.getKey(), Flight.SetSessionOptionsResult.Error.newBuilder()
                .setValue(error).build());
          }
        }
        Session updated = new Session(options);
        return new Reply(List.of(result(result.build())), setCookie(updated));
      }
      case GET -> {
        parse(action, Flight.GetSessionOptionsRequest::parseFrom);
        Flight.GetSessionOptionsResult.Builder result = Flight.GetSessionOptionsResult.newBuilder();
        session(cookies).options().forEach((name, value) -> result.putSessionOptions(name,
            Flight.SessionOptionValue.newBuilder().setStringValue(value).build()));
        return new Reply(List.of(result(result.build())), null);
      }
      case CLOSE -> {
        parse(action, Flight.CloseSessionRequest::parseFrom);
        return new Reply(List.of(result(Flight.CloseSessionResult.newBuilder()
            .setStatus(Flight.CloseSessionResult.Status.CLOSED).build())), setCookie(Session.NONE));
      }
      default -> throw new IllegalArgumentException("not a session action: " + action.getType());
    }
  }

  /**
   * The session the request's cookies carry ({@link Session#NONE} without one).
   *
   * @throws io.vertx.grpc.server.StatusException INVALID_ARGUMENT if the session cookie is
   *     malformed, oversized or names unknown options
   */
  static Session session(List<String> cookies) {
    String value = Cookies.value(cookies, COOKIE);
    if (value == null || value.isEmpty()) {
      return Session.NONE;
    }
    if (value.length() > MAX_COOKIE_CHARS) {
      throw malformed("is " + value.length() + " characters long; the limit is " + MAX_COOKIE_CHARS);
    }
    try {
      return decode(Base64.getUrlDecoder().decode(value));
    } catch (IllegalArgumentException | BufferUnderflowException | CharacterCodingException e) {
      throw malformed("cannot be decoded");
    }
  }

  /** The cookie value for {@code session}: base64url of the entries and their CRC32C. */
  static String encode(Session session) {
    ByteBuffer out = ByteBuffer.allocate(MAX_COOKIE_CHARS);
    out.put(VERSION).put((byte) session.options().size());
    new TreeMap<>(session.options()).forEach((name, value) -> {
      byte[] n = name.getBytes(StandardCharsets.UTF_8);
      byte[] v = value.getBytes(StandardCharsets.UTF_8);
      out.put((byte) n.length).put(n).putShort((short) v.length).put(v);
    });
    CRC32C crc = new CRC32C();
    crc.update(out.array(), 0, out.position());
    out.putInt((int) crc.getValue());
    byte[] bytes = new byte[out.position()];
    out.flip().get(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static Session decode(byte[] bytes) throws CharacterCodingException {
    if (bytes.length < 6) {
      throw malformed("is truncated");
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    if (in.getInt(bytes.length - 4) != (int) crc.getValue()) {
      throw malformed("fails its checksum");
    }
    in.limit(bytes.length - 4);
    if (in.get() != VERSION) {
      throw malformed("has an unknown version");
    }
    int count = Byte.toUnsignedInt(in.get());
    Map<String, String> options = new TreeMap<>();
    for (int i = 0; i < count; i++) {
      String name = utf8(in, Byte.toUnsignedInt(in.get()));
      String value = utf8(in, Short.toUnsignedInt(in.getShort()));
      boolean valid = switch (name) {
        case CATALOG -> value.equals(SqlCatalog.LAKE);
        case SCHEMA -> IDENTIFIER.matcher(value).matches();
        default -> false;
      };
      if (!valid || options.put(name, value) != null) {
        throw malformed("carries an invalid option");
      }
    }
    if (in.hasRemaining()) {
      throw malformed("has trailing bytes");
    }
    return new Session(options);
  }

  // Sets or removes one option in place; the error to report, or null.
  private Flight.SetSessionOptionsResult.ErrorValue apply(Map<String, String> options, String name,
      Flight.SessionOptionValue value) {
    if (!name.equals(CATALOG) && !name.equals(SCHEMA)) {
      return Flight.SetSessionOptionsResult.ErrorValue.INVALID_NAME;
    }
    if (value.getOptionValueCase() == Flight.SessionOptionValue.OptionValueCase.OPTIONVALUE_NOT_SET) {
      options.remove(name);
      return null;
    }
    if (!value.hasStringValue()) {
      return Flight.SetSessionOptionsResult.ErrorValue.INVALID_VALUE;
    }
    String text = value.getStringValue();
    if (name.equals(CATALOG)) {
      if (!text.equalsIgnoreCase(SqlCatalog.LAKE)) {
        return Flight.SetSessionOptionsResult.ErrorValue.INVALID_VALUE;
      }
      options.put(CATALOG, SqlCatalog.LAKE);
      return null;
    }
    Optional<String> schema = existingSchema(text);
    if (schema.isEmpty()) {
      return Flight.SetSessionOptionsResult.ErrorValue.INVALID_VALUE;
    }
    options.put(SCHEMA, schema.get());
    return null;
  }

  // The registry's spelling of a schema: the exact name, else the one matching it ignoring case.
  private Optional<String> existingSchema(String name) {
    if (!IDENTIFIER.matcher(name).matches()) {
      return Optional.empty();
    }
    List<String> schemas = catalog.namespaces();
    if (schemas.contains(name)) {
      return Optional.of(name);
    }
    List<String> folded = schemas.stream().filter(s -> s.equalsIgnoreCase(name)).toList();
    return folded.size() == 1 ? Optional.of(folded.getFirst()) : Optional.empty();
  }

  private static String setCookie(Session session) {
    return session.options().isEmpty()
        ? COOKIE + "=; Max-Age=0"
        : COOKIE + "=" + encode(session);
  }

  private static Flight.Result result(MessageLite message) {
    return Flight.Result.newBuilder().setBody(message.toByteString()).build();
  }

  @FunctionalInterface
  private interface Parser<T> {
    T parse(com.google.protobuf.ByteString bytes) throws InvalidProtocolBufferException;
  }

  private static <T> T parse(Flight.Action action, Parser<T> parser) {
    try {
      return parser.parse(action.getBody());
    } catch (InvalidProtocolBufferException e) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
          "the body of action '" + action.getType() + "' is not a " + action.getType() + " request");
    }
  }

  private static io.vertx.grpc.server.StatusException malformed(String what) {
    return ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "the session cookie " + COOKIE + " "
        + what + "; drop it or call CloseSession");
  }

  private static String utf8(ByteBuffer in, int length) throws CharacterCodingException {
    if (length > in.remaining()) {
      throw new BufferUnderflowException();
    }
    byte[] bytes = new byte[length];
    in.get(bytes);
    return StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes)).toString();
  }
}
