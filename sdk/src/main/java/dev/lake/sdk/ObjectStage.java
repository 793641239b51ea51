package dev.lake.sdk;

import dev.lake.engine.DataLocation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Where the SDK writes and reads managed objects: the stage the server names in its
 * {@link StageDescriptor} (a local directory for {@code lake dev}, an S3 bucket and prefix in
 * production). Every object of a tenant lies below {@code tenants/<tenant>/} of the stage, under
 * the immutable content-derived key {@code objects/<first two hex digits>/<sha256>}; the bytes go
 * straight between the SDK and the store, never through a lake server.
 *
 * <p>Implementations: {@code LocalStage} (a directory) and {@code S3Stage} (multipart upload,
 * ranged GET, presigned URLs).
 */
interface ObjectStage extends AutoCloseable {

  /** A content-derived key below a tenant's prefix. */
  Pattern CONTENT_KEY = Pattern.compile("objects/[0-9a-f]{2}/[0-9a-f]{64}");

  /** The key, relative to the tenant's prefix, of the object whose SHA-256 is {@code sha256}. */
  static String contentKey(String sha256) {
    return "objects/" + sha256.substring(0, 2) + "/" + sha256;
  }

  /**
   * Refuses an empty range or one outside {@code location} (the whole of an empty object,
   * {@code [0, 0)}, is allowed).
   *
   * @throws IllegalArgumentException naming the range and the object
   */
  static void checkRange(DataLocation location, long from, long toExclusive) {
    boolean wholeEmpty = from == 0 && toExclusive == 0 && location.size() == 0;
    if (!wholeEmpty && (from < 0 || toExclusive > location.size() || from >= toExclusive)) {
      throw new IllegalArgumentException("range [" + from + ", " + toExclusive + ") is empty or "
          + "outside " + location.uri() + " of " + location.size() + " bytes");
    }
  }

  /**
   * Streams {@code file} into the stage while computing its size and SHA-256 in bounded memory,
   * publishing it under its content-derived key only once every byte is durable. Idempotent: the
   * same content yields the same location, an object already published is not written again, and
   * an upload interrupted earlier (same file, same stage) is resumed where the store allows it.
   *
   * @throws java.nio.file.NoSuchFileException if {@code file} does not exist
   * @throws IOException if the file cannot be read or the store refuses or fails the upload; no
   *     object is published then
   */
  DataLocation put(Path file, String mimeType, UploadProgress progress) throws IOException;

  /**
   * The stored bytes {@code [from, toExclusive)} of {@code location}: the stream fails with
   * {@link ObjectVerificationException} naming the object when it ends with another number of
   * bytes or, for the whole object, another SHA-256. For S3 one ranged GET whose {@code
   * Content-Range} and length are checked.
   *
   * @throws IllegalArgumentException if {@code location} is not {@link #owns owned} or the range
   *     is empty or outside it, before any I/O
   * @throws java.nio.file.NoSuchFileException if the object does not exist
   * @throws IOException if the store fails
   */
  InputStream open(DataLocation location, long from, long toExclusive) throws IOException;

  /** Whether {@code location} lies below this stage's tenant prefix (checked before any I/O). */
  boolean owns(DataLocation location);

  /**
   * A time-limited URL that reads {@code location} without credentials.
   *
   * @throws UnsupportedOperationException for a stage that cannot presign (a local directory)
   */
  java.net.URI presign(DataLocation location, Duration ttl);

  /** The stage this is, as the server named it. */
  StageDescriptor descriptor();

  @Override
  void close();
}
