package dev.lake.sdk;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A local file to store as the value of a {@code FILE} column: bound as a parameter of
 * {@link LakeClient#execute}, it is uploaded to the caller's managed stage and the row gets its
 * {@link dev.lake.engine.DataLocation}.
 *
 * <pre>{@code
 * lake.execute("INSERT INTO robots.episodes (id, video) VALUES (?, ?)", 7,
 *     FileUpload.of(Path.of("run7.mp4"), "video/mp4"));
 * }</pre>
 *
 * <p>{@link #withProgress} reports the upload's progress and the stored object's location, e.g.
 * for a progress bar ({@code lake put} draws one).
 *
 * @param path the file; it is read when the statement runs, not now
 * @param mimeType its media type ({@code type/subtype}), stored in the DataLocation
 * @param progress told of the bytes stored while the file uploads, then of its location
 */
public record FileUpload(Path path, String mimeType, UploadProgress progress) {

  /** The media type when none is given. */
  public static final String DEFAULT_MIME_TYPE = "application/octet-stream";

  /**
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code mimeType} is not {@code type/subtype}
   */
  public FileUpload {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(mimeType, "mimeType");
    Objects.requireNonNull(progress, "progress");
    int slash = mimeType.indexOf('/');
    if (mimeType.isBlank() || slash <= 0 || slash == mimeType.length() - 1
        || !mimeType.strip().equals(mimeType)) {
      throw new IllegalArgumentException("invalid media type '" + mimeType
          + "': expected type/subtype, e.g. video/mp4");
    }
  }

  /**
   * {@code path} with its media type and no progress reports.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code mimeType} is not {@code type/subtype}
   */
  public FileUpload(Path path, String mimeType) {
    this(path, mimeType, UploadProgress.none());
  }

  /**
   * This upload, reporting to {@code listener} from the uploading thread: {@link
   * UploadProgress#onProgress} as bytes become durable in the stage, then {@link
   * UploadProgress#onStored} once with the object's location, before the statement runs.
   */
  public FileUpload withProgress(UploadProgress listener) {
    return new FileUpload(path, mimeType, listener);
  }

  /** {@code path} as {@value #DEFAULT_MIME_TYPE}. */
  public static FileUpload of(Path path) {
    return new FileUpload(path, DEFAULT_MIME_TYPE);
  }

  /** {@code path} with its media type. */
  public static FileUpload of(Path path, String mimeType) {
    return new FileUpload(path, mimeType);
  }
}
