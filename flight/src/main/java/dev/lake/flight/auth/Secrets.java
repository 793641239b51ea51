package dev.lake.flight.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * The hashes a principals file stores instead of secrets: SHA-256 of a bearer token (hex), and
 * PBKDF2-HMAC-SHA256 of a password as {@code pbkdf2-sha256$<iterations>$<salt>$<hash>} (salt and
 * hash in base64). Used by the server to check and by {@code lake cluster --secure} to write.
 */
public final class Secrets {

  /** Iterations of a new password hash. */
  public static final int PASSWORD_ITERATIONS = 120_000;
  private static final String PBKDF2 = "pbkdf2-sha256";
  private static final SecureRandom RANDOM = new SecureRandom();

  private Secrets() {}

  /** A new random bearer token: 256 bits, base64url without padding. */
  public static String newToken() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The hex SHA-256 of a token's UTF-8 bytes, as stored in {@code token_sha256}. */
  public static String tokenHash(String token) {
    return HexFormat.of().formatHex(sha256(token.getBytes(StandardCharsets.UTF_8)));
  }

  static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK lacks SHA-256", e);
    }
  }

  /** A new password hash, as stored in {@code password}. */
  public static String passwordHash(String password, int iterations) {
    byte[] salt = new byte[16];
    RANDOM.nextBytes(salt);
    Base64.Encoder b64 = Base64.getEncoder().withoutPadding();
    return PBKDF2 + "$" + iterations + "$" + b64.encodeToString(salt) + "$"
        + b64.encodeToString(pbkdf2(password, salt, iterations));
  }

  /**
   * Whether {@code password} matches {@code stored} (a {@link #passwordHash}); the comparison
   * takes the same time wherever the bytes differ.
   *
   * @throws IllegalArgumentException if {@code stored} is not a password hash
   */
  static boolean passwordMatches(String password, String stored) {
    PasswordHash hash = PasswordHash.parse(stored);
    return MessageDigest.isEqual(hash.hash(), pbkdf2(password, hash.salt(), hash.iterations()));
  }

  /** A parsed {@code pbkdf2-sha256$...} string. */
  record PasswordHash(int iterations, byte[] salt, byte[] hash) {
    static PasswordHash parse(String stored) {
      String[] parts = stored.split("\\$", -1);
      if (parts.length != 4 || !parts[0].equals(PBKDF2)) {
        throw new IllegalArgumentException("a password must be stored as " + PBKDF2
            + "$<iterations>$<salt base64>$<hash base64>");
      }
      try {
        int iterations = Integer.parseInt(parts[1]);
        if (iterations < 1_000) {
          throw new IllegalArgumentException("a password hash needs at least 1000 iterations");
        }
        return new PasswordHash(iterations, Base64.getDecoder().decode(parts[2]),
            Base64.getDecoder().decode(parts[3]));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("the iterations of a password hash are not a number");
      }
    }
  }

  private static byte[] pbkdf2(String password, byte[] salt, int iterations) {
    PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
    try {
      return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK lacks PBKDF2WithHmacSHA256", e);
    } finally {
      spec.clearPassword();
    }
  }
}
