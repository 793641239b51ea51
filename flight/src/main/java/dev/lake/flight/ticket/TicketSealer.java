package dev.lake.flight.ticket;

import dev.lake.flight.auth.Principal;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Seals the bytes lake hands to clients (tickets, prepared-statement handles) into AES-256-GCM
 * envelopes, and opens them again on any replica holding the same key ring. An envelope binds the
 * principal and tenant it was issued to, the audience (the cluster), issue and expiry times, the
 * exact snapshot set a ticket replays and the inner payload; none of it can be read or changed
 * without the key. Layout, big-endian:
 *
 * <pre>
 *   clear header (authenticated as GCM's additional data):
 *     "LKS" format(1)=1 kind(1: 'T' ticket, 'H' handle) keyIdLen(1) keyId audienceLen(1) audience nonce(12)
 *   ciphertext of, then a 16-byte tag:
 *     principalLen(2) principal tenantLen(2) tenant issuedAtMs(8) expiresAtMs(8)
 *     pinCount(4) { schemaLen(2) schema tableLen(2) table registered(1)
 *                   [ engineLen(2) engine locationLen(4) location incarnation(16) ] version(8) }*
 *     payload (the rest)
 * </pre>
 *
 * Nonces are 96 random bits per envelope. Thread-safe; the ring is read once per envelope, so a
 * reloaded ring ({@link KeyRingFile}) takes effect on the next one.
 */
public final class TicketSealer {

  /** Default lifetime of a ticket: a client redeems it right after GetFlightInfo. */
  public static final Duration DEFAULT_TICKET_TTL = Duration.ofHours(1);
  /** Default lifetime of a prepared-statement handle: JDBC keeps statements open for long. */
  public static final Duration DEFAULT_HANDLE_TTL = Duration.ofHours(24);

  /** What an envelope carries. */
  public enum Kind {
    TICKET('T'), HANDLE('H');

    private final byte tag;

    Kind(char tag) {
      this.tag = (byte) tag;
    }
  }

  /** What an opened envelope says. {@code payload} belongs to the caller. */
  public record Opened(String principal, String tenant, Instant issuedAt, Instant expiresAt,
      List<SnapshotPin> pins, byte[] payload) {
    public Opened {
      pins = List.copyOf(pins);
    }
  }

  private static final byte[] MAGIC = {'L', 'K', 'S'};
  private static final byte FORMAT = 1;
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final int MAX_PINS = 65_536;
  private static final Pattern AUDIENCE = Pattern.compile("[A-Za-z0-9._:/-]{1,255}");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Supplier<KeyRing> ring;
  private final String audience;
  private final Clock clock;
  private final Duration ticketTtl;
  private final Duration handleTtl;

  /**
   * @param audience the cluster's id: envelopes of another audience are refused
   * @throws IllegalArgumentException if the audience is not 1 to 255 of [A-Za-z0-9._:/-] or a TTL
   *     is not positive
   */
  public TicketSealer(Supplier<KeyRing> ring, String audience, Clock clock, Duration ticketTtl,
      Duration handleTtl) {
    this.ring = Objects.requireNonNull(ring, "ring");
    this.audience = Objects.requireNonNull(audience, "audience");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (!AUDIENCE.matcher(audience).matches()) {
      throw new IllegalArgumentException("audience '" + audience
          + "' is not 1 to 255 of [A-Za-z0-9._:/-]");
    }
    if (ticketTtl.isNegative() || ticketTtl.isZero() || handleTtl.isNegative()
        || handleTtl.isZero()) {
      throw new IllegalArgumentException("ticket and handle lifetimes must be > 0");
    }
    this.ticketTtl = ticketTtl;
    this.handleTtl = handleTtl;
  }

  /** A sealer with the default lifetimes and the system clock. */
  public TicketSealer(Supplier<KeyRing> ring, String audience) {
    this(ring, audience, Clock.systemUTC(), DEFAULT_TICKET_TTL, DEFAULT_HANDLE_TTL);
  }

  public String audience() {
    return audience;
  }

  /** Seals {@code payload} for {@code principal}, with the kind's lifetime from now. */
  public byte[] seal(Kind kind, Principal principal, List<SnapshotPin> pins, byte[] payload) {
    KeyRing keys = ring.get();
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    byte[] header = header(kind, keys.activeId(), nonce);
    Instant now = clock.instant();
    Instant expires = now.plus(kind == Kind.TICKET ? ticketTtl : handleTtl);
    ByteArrayOutputStream plain = new ByteArrayOutputStream(64 + payload.length);
    try (DataOutputStream out = new DataOutputStream(plain)) {
      shortText(out, principal.name());
      shortText(out, principal.tenant());
      out.writeLong(now.toEpochMilli());
      out.writeLong(expires.toEpochMilli());
      out.writeInt(pins.size());
      for (SnapshotPin pin : pins) {
        shortText(out, pin.schema());
        shortText(out, pin.table());
        out.writeBoolean(pin.registered());
        if (pin.registered()) {
          shortText(out, pin.engine());
          byte[] location = pin.location().getBytes(StandardCharsets.UTF_8);
          out.writeInt(location.length);
          out.write(location);
          out.writeLong(pin.incarnation().getMostSignificantBits());
          out.writeLong(pin.incarnation().getLeastSignificantBits());
        }
        out.writeLong(pin.version());
      }
      out.write(payload);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    byte[] sealed = crypt(Cipher.ENCRYPT_MODE, keys.active(), nonce, header, plain.toByteArray());
    return ByteBuffer.allocate(header.length + sealed.length).put(header).put(sealed).array();
  }

  /**
   * Opens an envelope issued to {@code principal} by this audience.
   *
   * @throws TicketRefusedException naming why it is refused: MALFORMED, WRONG_KIND, UNKNOWN_KEY,
   *     OTHER_AUDIENCE, FORGED, EXPIRED, OTHER_PRINCIPAL (checked in that order)
   */
  public Opened open(Kind kind, byte[] envelope, Principal principal) {
    String what = kind == Kind.TICKET ? "ticket" : "prepared statement handle";
    ByteBuffer in = ByteBuffer.wrap(envelope);
    String keyId;
    String sealedAudience;
    byte sealedKind;
    try {
      byte[] magic = new byte[MAGIC.length];
      in.get(magic);
      if (!Arrays.equals(magic, MAGIC) || in.get() != FORMAT) {
        throw malformed(what);
      }
      sealedKind = in.get();
      keyId = text(in, Byte.toUnsignedInt(in.get()));
      sealedAudience = text(in, Byte.toUnsignedInt(in.get()));
      in.position(in.position() + NONCE_BYTES);
    } catch (BufferUnderflowException | IllegalArgumentException e) {
      throw malformed(what);
    }
    if (sealedKind != kind.tag) {
      throw new TicketRefusedException(TicketRefusedException.Reason.WRONG_KIND, "the " + what
          + " is a " + (kind == Kind.TICKET ? "prepared statement handle" : "ticket"));
    }
    SecretKey key = ring.get().key(keyId);
    if (key == null) {
      throw new TicketRefusedException(TicketRefusedException.Reason.UNKNOWN_KEY, "the " + what
          + " was sealed with key '" + keyId + "', which this server's key ring does not hold"
          + " (another cluster's, or retired): plan the query again on this cluster");
    }
    if (!sealedAudience.equals(audience)) {
      throw new TicketRefusedException(TicketRefusedException.Reason.OTHER_AUDIENCE, "the "
          + what + " was issued for audience '" + sealedAudience + "', not this cluster's ('"
          + audience + "')");
    }
    int headerLength = in.position();
    byte[] header = Arrays.copyOf(envelope, headerLength);
    byte[] nonce = Arrays.copyOfRange(envelope, headerLength - NONCE_BYTES, headerLength);
    byte[] plain;
    try {
      plain = decrypt(key, nonce, header,
          Arrays.copyOfRange(envelope, headerLength, envelope.length));
    } catch (AEADBadTagException e) {
      throw new TicketRefusedException(TicketRefusedException.Reason.FORGED, "the " + what
          + " does not verify: it was altered or cut");
    }
    Opened opened;
    try {
      opened = claims(ByteBuffer.wrap(plain));
    } catch (BufferUnderflowException | IllegalArgumentException e) {
      // Authenticated yet unreadable: only a writer of another format would produce it.
      throw malformed(what);
    }
    if (!clock.instant().isBefore(opened.expiresAt())) {
      throw new TicketRefusedException(TicketRefusedException.Reason.EXPIRED, "the " + what
          + " expired at " + opened.expiresAt() + ": "
          + (kind == Kind.TICKET ? "call GetFlightInfo again" : "prepare the statement again"));
    }
    if (!opened.principal().equals(principal.name()) || !opened.tenant().equals(principal.tenant())) {
      throw new TicketRefusedException(TicketRefusedException.Reason.OTHER_PRINCIPAL, "the "
          + what + " was issued to another principal");
    }
    return opened;
  }

  private byte[] header(Kind kind, String keyId, byte[] nonce) {
    byte[] id = keyId.getBytes(StandardCharsets.US_ASCII);
    byte[] aud = audience.getBytes(StandardCharsets.US_ASCII);
    return ByteBuffer.allocate(MAGIC.length + 2 + 1 + id.length + 1 + aud.length + NONCE_BYTES)
        .put(MAGIC).put(FORMAT).put(kind.tag).put((byte) id.length).put(id)
        .put((byte) aud.length).put(aud).put(nonce).array();
  }

  private static Opened claims(ByteBuffer in) {
    String principal = text(in, Short.toUnsignedInt(in.getShort()));
    String tenant = text(in, Short.toUnsignedInt(in.getShort()));
    Instant issued = Instant.ofEpochMilli(in.getLong());
    Instant expires = Instant.ofEpochMilli(in.getLong());
    int count = in.getInt();
    if (count < 0 || count > MAX_PINS) {
      throw new IllegalArgumentException("pin count");
    }
    List<SnapshotPin> pins = new ArrayList<>(Math.min(count, 1024));
    for (int i = 0; i < count; i++) {
      String schema = text(in, Short.toUnsignedInt(in.getShort()));
      String table = text(in, Short.toUnsignedInt(in.getShort()));
      boolean registered = in.get() != 0;
      String engine = null;
      String location = null;
      UUID incarnation = null;
      if (registered) {
        engine = text(in, Short.toUnsignedInt(in.getShort()));
        location = text(in, in.getInt());
        incarnation = new UUID(in.getLong(), in.getLong());
      }
      pins.add(new SnapshotPin(schema, table, engine, location, incarnation, in.getLong()));
    }
    byte[] payload = new byte[in.remaining()];
    in.get(payload);
    return new Opened(principal, tenant, issued, expires, pins, payload);
  }

  private static String text(ByteBuffer in, int length) {
    if (length < 0 || length > in.remaining()) {
      throw new BufferUnderflowException();
    }
    byte[] bytes = new byte[length];
    in.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static void shortText(DataOutputStream out, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > 0xffff) {
      throw new IllegalArgumentException("a name of " + bytes.length + " bytes does not fit a ticket");
    }
    out.writeShort(bytes.length);
    out.write(bytes);
  }

  private static byte[] crypt(int mode, SecretKey key, byte[] nonce, byte[] aad, byte[] input) {
    try {
      return cipher(mode, key, nonce, aad).doFinal(input);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available", e);
    }
  }

  private static byte[] decrypt(SecretKey key, byte[] nonce, byte[] aad, byte[] input)
      throws AEADBadTagException {
    try {
      return cipher(Cipher.DECRYPT_MODE, key, nonce, aad).doFinal(input);
    } catch (AEADBadTagException e) {
      throw e;
    } catch (GeneralSecurityException e) {
      // Input shorter than the tag lands here as a bad block: the envelope was cut.
      throw new AEADBadTagException("cut");
    }
  }

  private static Cipher cipher(int mode, SecretKey key, byte[] nonce, byte[] aad)
      throws GeneralSecurityException {
    Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
    cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
    cipher.updateAAD(aad);
    return cipher;
  }

  private static TicketRefusedException malformed(String what) {
    return new TicketRefusedException(TicketRefusedException.Reason.MALFORMED,
        "invalid " + what + ": not a lake envelope");
  }
}
