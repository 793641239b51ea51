package dev.lake.engine.log.segment;

import java.util.Locale;

/**
 * The trade-off a table's segments are written with: {@code none} stores raw Arrow buffers (read
 * mapped, zero-copy), {@code fast} adds lightweight encodings where they pay (frame of reference
 * with bit-packing, dictionaries, constants), {@code small} adds zstd over each chunk.
 */
public enum Compression {
  NONE, FAST, SMALL;

  /**
   * @throws IllegalArgumentException naming the value when it is not one of none, fast, small
   */
  public static Compression parse(String text) {
    for (Compression c : values()) {
      if (c.name().toLowerCase(Locale.ROOT).equals(text.trim().toLowerCase(Locale.ROOT))) {
        return c;
      }
    }
    throw new IllegalArgumentException("compression must be 'none', 'fast' or 'small', got '" + text + "'");
  }
}
