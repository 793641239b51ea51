package dev.lake.sdk;

import java.nio.file.Path;

/** Opens the stage a {@link StageDescriptor} names. */
final class ObjectStages {
  private ObjectStages() {}

  /**
   * An S3 stage ({@link S3Stage}, with {@code credentials} and {@code resumeDir}) for an {@code
   * s3:} root, else a {@link LocalStage} (credentials and resume directory unused).
   *
   * @param resumeDir where unfinished multipart uploads are remembered; null: none
   */
  static ObjectStage open(StageDescriptor descriptor, StageCredentials credentials,
      Path resumeDir) {
    return descriptor.isS3() ? new S3Stage(descriptor, credentials, resumeDir)
        : new LocalStage(descriptor);
  }
}
