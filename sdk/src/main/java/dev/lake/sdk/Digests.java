package dev.lake.sdk;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The digests the stages compute (every JVM has them). */
final class Digests {
  private Digests() {}

  static MessageDigest sha256() {
    return algorithm("SHA-256");
  }

  static MessageDigest md5() {
    return algorithm("MD5");
  }

  /** The lowercase hex of {@code digest}'s result (which resets it). */
  static String hex(MessageDigest digest) {
    return HexFormat.of().formatHex(digest.digest());
  }

  private static MessageDigest algorithm(String name) {
    try {
      return MessageDigest.getInstance(name);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(name + " is missing from this JVM", e);
    }
  }
}
