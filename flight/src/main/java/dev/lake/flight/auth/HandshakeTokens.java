package dev.lake.flight.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The short-lived bearer tokens a basic-auth Handshake answers: {@code lkh1.<payload>.<mac>},
 * payload = principal name and expiry (epoch seconds), MAC = HMAC-SHA256 under the server's key.
 * Replicas sharing the key (the principals file's {@code handshake_secret}) accept each other's
 * tokens; a principal removed from the file loses access at once because the name is looked up
 * again on every call.
 */
final class HandshakeTokens {

  static final String PREFIX = "lkh1.";
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

  private final SecretKeySpec key;
  private final Duration lifetime;
  private final Clock clock;

  HandshakeTokens(byte[] key, Duration lifetime, Clock clock) {
    if (key.length < 32) {
      throw new IllegalArgumentException("handshake_secret must be at least 32 bytes");
    }
    this.key = new SecretKeySpec(key, "HmacSHA256");
    this.lifetime = lifetime;
    this.clock = clock;
  }

  String issue(String name) {
    long expiry = clock.instant().plus(lifetime).getEpochSecond();
    byte[] payload = (expiry + ":" + name).getBytes(StandardCharsets.UTF_8);
    return PREFIX + B64.encodeToString(payload) + "." + B64.encodeToString(mac(payload));
  }

  /** A token's principal name and expiry (epoch seconds). */
  record Issued(String name, long expiresAt) {}

  /** How long a token issued now stays valid. */
  Duration lifetime() {
    return lifetime;
  }

  /** Whether {@code issued} has expired or expires within {@code margin}. */
  boolean expiresWithin(Issued issued, Duration margin) {
    return clock.instant().plus(margin).getEpochSecond() >= issued.expiresAt();
  }

  /**
   * The principal name a token was issued to, or empty if it is not one of ours.
   *
   * @throws AuthenticationException if it is ours but expired
   */
  Optional<String> verify(String token) {
    Optional<Issued> issued = read(token);
    if (issued.isPresent() && expiresWithin(issued.get(), Duration.ZERO)) {
      throw new AuthenticationException("the handshake token has expired: authenticate again");
    }
    return issued.map(Issued::name);
  }

  /** The name and expiry a token of ours carries (expired or not), or empty if it is not ours. */
  Optional<Issued> read(String token) {
    if (!token.startsWith(PREFIX)) {
      return Optional.empty();
    }
    int dot = token.indexOf('.', PREFIX.length());
    if (dot < 0) {
      return Optional.empty();
    }
    byte[] payload;
    byte[] mac;
    try {
      payload = Base64.getUrlDecoder().decode(token.substring(PREFIX.length(), dot));
      mac = Base64.getUrlDecoder().decode(token.substring(dot + 1));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    if (!MessageDigest.isEqual(mac, mac(payload))) {
      return Optional.empty();
    }
    String text = new String(payload, StandardCharsets.UTF_8);
    int colon = text.indexOf(':');
    return Optional.of(new Issued(text.substring(colon + 1),
        Long.parseLong(text.substring(0, colon))));
  }

  private byte[] mac(byte[] payload) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return mac.doFinal(payload);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK lacks HmacSHA256", e);
    }
  }
}
