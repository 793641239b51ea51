package dev.lake.engine.log.segment;

import java.io.IOException;

/**
 * A segment file is missing, truncated, or fails a checksum or structural check. The table layer
 * turns it into a {@code CorruptTableException} naming the file and its version.
 */
public final class SegmentFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  public SegmentFormatException(String message) {
    super(message);
  }

  public SegmentFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
