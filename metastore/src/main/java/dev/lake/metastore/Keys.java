package dev.lake.metastore;

import java.nio.charset.StandardCharsets;

/** The limits every {@link MetaStore} enforces on keys, values and pages, the same for all backends. */
public final class Keys {

  /** Longest key in UTF-8 bytes. */
  public static final int MAX_KEY_BYTES = 1024;
  /** Largest value; below DynamoDB's 400 KB item limit with room for the key and attributes. */
  public static final int MAX_VALUE_BYTES = 350 * 1024;
  /** Largest page of a prefix scan. */
  public static final int MAX_PAGE_SIZE = 1000;

  private Keys() {}

  /**
   * Checks a key: 1..{@value #MAX_KEY_BYTES} bytes of printable ASCII other than space.
   *
   * @throws InvalidKeyException naming the key and the problem
   */
  public static void checkKey(String key) {
    if (key == null || key.isEmpty()) {
      throw new InvalidKeyException(String.valueOf(key), "key must not be empty");
    }
    checkChars(key);
    if (key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
      throw new InvalidKeyException(key, "key longer than " + MAX_KEY_BYTES + " bytes");
    }
  }

  /** Checks a scan prefix: like a key, but may be empty (scan everything). */
  public static void checkPrefix(String prefix) {
    if (prefix == null) {
      throw new InvalidKeyException("null", "prefix must not be null");
    }
    checkChars(prefix);
    if (prefix.length() > MAX_KEY_BYTES) {
      throw new InvalidKeyException(prefix, "prefix longer than " + MAX_KEY_BYTES + " bytes");
    }
  }

  /** @throws ValueTooLargeException if the value is over {@value #MAX_VALUE_BYTES} bytes */
  public static void checkValue(String key, byte[] value) {
    if (value == null) {
      throw new IllegalArgumentException("value of " + key + " must not be null");
    }
    if (value.length > MAX_VALUE_BYTES) {
      throw new ValueTooLargeException(key, value.length);
    }
  }

  /** @throws IllegalArgumentException if the page size is outside 1..{@value #MAX_PAGE_SIZE} */
  public static void checkPageSize(int limit) {
    if (limit < 1 || limit > MAX_PAGE_SIZE) {
      throw new IllegalArgumentException(
          "page size must be 1.." + MAX_PAGE_SIZE + ", got " + limit);
    }
  }

  private static void checkChars(String key) {
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c <= 0x20 || c >= 0x7f) {
        throw new InvalidKeyException(
            key, "character at index " + i + " is not printable ASCII (0x" + Integer.toHexString(c) + ")");
      }
    }
  }
}
