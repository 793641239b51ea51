package dev.lake.metastore;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.zip.CRC32C;

/**
 * Encodes the opaque continuation of a prefix scan: the last key returned plus a checksum binding
 * it to the prefix, so a token that was altered or used with another prefix is refused.
 */
public final class ContinuationTokens {

  private ContinuationTokens() {}

  public static String encode(String prefix, String lastKey) {
    String key = Base64.getUrlEncoder().withoutPadding()
        .encodeToString(lastKey.getBytes(StandardCharsets.UTF_8));
    return key + "." + checksum(prefix, lastKey);
  }

  /** @return the last key of the previous page */
  public static String decode(String prefix, String token) {
    int dot = token.lastIndexOf('.');
    if (dot <= 0) {
      throw new InvalidContinuationException("malformed continuation token");
    }
    String lastKey;
    try {
      lastKey = new String(
          Base64.getUrlDecoder().decode(token.substring(0, dot)), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new InvalidContinuationException("malformed continuation token");
    }
    if (!lastKey.startsWith(prefix) || !checksum(prefix, lastKey).equals(token.substring(dot + 1))) {
      throw new InvalidContinuationException(
          "continuation token does not belong to a scan of prefix '" + prefix + "'");
    }
    return lastKey;
  }

  private static String checksum(String prefix, String lastKey) {
    CRC32C crc = new CRC32C();
    crc.update(prefix.getBytes(StandardCharsets.UTF_8));
    crc.update(0);
    crc.update(lastKey.getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().toHexDigits((int) crc.getValue());
  }
}
