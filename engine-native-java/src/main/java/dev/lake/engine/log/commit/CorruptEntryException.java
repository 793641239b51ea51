package dev.lake.engine.log.commit;

import java.io.IOException;

/** A commit log entry or checkpoint exists but fails its checksum or cannot be decoded. */
public final class CorruptEntryException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String file;

  public CorruptEntryException(String what, String file, String message, Throwable cause) {
    super(what + " " + file + " " + message, cause);
    this.file = file;
  }

  public String file() {
    return file;
  }
}
