package dev.lake.engine.lance;

import dev.lake.engine.EngineException;
import dev.lake.engine.TableLocation;
import java.util.regex.Pattern;

/**
 * Reads the exceptions the Lance JNI layer raises (plain {@link RuntimeException}s,
 * {@link IllegalArgumentException}s, sometimes an undeclared {@link java.io.IOException}, all
 * carrying the Rust error text) and turns them into lake's {@link EngineException} family.
 */
final class LanceErrors {

  /** Rust source positions Lance appends to its messages: ", /workspace/rust/x.rs:1:2". */
  private static final Pattern SOURCE_POSITION = Pattern.compile(",\\s*/[^,\\s]*\\.rs:\\d+:\\d+");

  private LanceErrors() {}

  /** The Lance message without Rust source positions, or the exception's class if it has none. */
  static String message(Throwable t) {
    String m = t.getMessage();
    if (m == null || m.isBlank()) {
      return t.getClass().getSimpleName();
    }
    return SOURCE_POSITION.matcher(m).replaceAll("").trim();
  }

  /** Lance could not find the dataset, version manifest or object it was asked for. */
  static boolean isNotFound(Throwable t) {
    String m = t.getMessage();
    return m != null && (m.contains("was not found") || m.contains("Not found") || m.contains("NotFound")
        || m.contains("not found"));
  }

  /** Lance lost a commit race more times than it retries. */
  static boolean isCommitConflict(Throwable t) {
    String m = t.getMessage();
    return m != null && (m.contains("onflict") || m.contains("oo many concurrent writers")
        || m.contains("Retryable commit"));
  }

  static boolean isAlreadyExists(Throwable t) {
    String m = t.getMessage();
    return m != null && m.contains("already exists");
  }

  /** A storage or library failure while {@code doing} something; the outcome of a write is unknown. */
  static EngineException failure(TableLocation location, String doing, Throwable t) {
    return new EngineException(location, doing + " failed in Lance: " + message(t), t);
  }
}
