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

  /** Of a file's bytes, read 1 MiB at a time. */
  static String of(java.nio.file.Path file) throws Exception {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    try (java.io.InputStream in = java.nio.file.Files.newInputStream(file)) {
      byte[] chunk = new byte[1 << 20];
      for (int n; (n = in.read(chunk)) > 0; ) {
        digest.update(chunk, 0, n);
      }
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}
