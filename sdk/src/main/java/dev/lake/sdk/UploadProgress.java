package dev.lake.sdk;

/** Receives the progress of a managed-object upload; called from the uploading thread. */
@FunctionalInterface
public interface UploadProgress {

  /** {@code done} of {@code total} bytes are durable in the stage. */
  void onProgress(long done, long total);

  /**
   * The object is complete in the stage under {@code location} (called once, after the last
   * {@link #onProgress}); by default nothing.
   */
  default void onStored(dev.lake.engine.DataLocation location) {}

  /** Progress that is ignored. */
  static UploadProgress none() {
    return (done, total) -> {};
  }
}
