package dev.lake.engine.log.commit;

import java.io.IOException;

/** A commit log entry exists but fails its checksum or cannot be decoded. */
public final class CorruptEntryException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String file;

  public CorruptEntryException(String file, String message, Throwable cause) {
    super("commit log entry " + file + " " + message, cause);
    this.file = file;
  }

  public String file() {
    return file;
  }
}
