package dev.lake.engine.log.commit;

import java.io.IOException;

/** A commit log entry or checkpoint exists but fails its checksum or cannot be decoded. */
public final class CorruptEntryException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String what;
  private final String file;
  private final String problem;

  /**
   * @param what the kind of file ({@code commit log entry}, {@code checkpoint})
   * @param file its key, relative to the table's location
   * @param message what is wrong; up to the first {@code ": "}, the part without decoder detail
   */
  public CorruptEntryException(String what, String file, String message, Throwable cause) {
    super(what + " " + file + " " + message, cause);
    this.what = what;
    this.file = file;
    int detail = message.indexOf(": ");
    this.problem = detail < 0 ? message : message.substring(0, detail);
  }

  public String what() {
    return what;
  }

  public String file() {
    return file;
  }

  /** What is wrong, without a decoder's detail (which may quote the file's bytes). */
  public String problem() {
    return problem;
  }
}
