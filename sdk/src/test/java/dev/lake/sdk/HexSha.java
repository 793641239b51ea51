package dev.lake.sdk;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The lowercase hex SHA-256 of some bytes, for tests. */
final class HexSha {
  private HexSha() {}

  static String of(byte[] bytes) throws NoSuchAlgorithmException {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
