package dev.lake.sdk;

/**
 * The SDK's own storage credentials for an S3 stage (the bytes go straight to the store, never
 * through a lake server): a static key pair with an optional session token, or the AWS default
 * credentials chain (environment, profile, instance role) when {@link #defaultChain()}.
 */
public record StageCredentials(String accessKeyId, String secretAccessKey, String sessionToken) {

  public StageCredentials {
    if ((accessKeyId == null) != (secretAccessKey == null)) {
      throw new IllegalArgumentException(
          "accessKeyId and secretAccessKey must be given together");
    }
    if (sessionToken != null && accessKeyId == null) {
      throw new IllegalArgumentException("a session token needs accessKeyId and secretAccessKey");
    }
  }

  /** A static key pair. */
  public static StageCredentials of(String accessKeyId, String secretAccessKey) {
    return new StageCredentials(accessKeyId, secretAccessKey, null);
  }

  /** The AWS default credentials chain. */
  public static StageCredentials defaultChain() {
    return new StageCredentials(null, null, null);
  }

  boolean isDefaultChain() {
    return accessKeyId == null;
  }

  @Override
  public String toString() {
    // never print the secret or the token
    return isDefaultChain() ? "StageCredentials[default chain]"
        : "StageCredentials[accessKeyId=" + accessKeyId + "]";
  }
}
