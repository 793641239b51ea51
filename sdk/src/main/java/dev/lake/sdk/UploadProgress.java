package dev.lake.sdk;

/** Receives the progress of a managed-object upload; called from the uploading thread. */
@FunctionalInterface
public interface UploadProgress {

  /** {@code done} of {@code total} bytes are durable in the stage. */
  void onProgress(long done, long total);

  /** Progress that is ignored. */
  static UploadProgress none() {
    return (done, total) -> {};
  }
}
