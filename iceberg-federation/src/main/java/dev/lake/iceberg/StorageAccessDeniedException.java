package dev.lake.iceberg;

import dev.lake.engine.SourceUnavailableException;
import dev.lake.engine.TableLocation;
import software.amazon.awssdk.awscore.exception.AwsServiceException;

/**
 * The object store refused the credentials lake read a table's files with (HTTP 403: keys the
 * catalog vended, or the configured {@code s3.*} keys, are wrong, revoked or expired); nothing was
 * read. Answered as unavailable: a later load may get valid keys from the catalog.
 */
public final class StorageAccessDeniedException extends SourceUnavailableException {
  private static final long serialVersionUID = 1L;

  private StorageAccessDeniedException(TableLocation location, String message, Throwable cause) {
    super(location, message, cause);
  }

  /** {@code e} if it is the store refusing lake's credentials for {@code what}, else null. */
  static StorageAccessDeniedException ifDenied(RuntimeException e, TableLocation location, String what) {
    if (!(e instanceof AwsServiceException refused) || refused.statusCode() != 403) {
      return null;
    }
    String code = refused.awsErrorDetails() == null || refused.awsErrorDetails().errorCode() == null
        ? "" : " " + refused.awsErrorDetails().errorCode();
    return new StorageAccessDeniedException(location, "the storage refused lake's credentials reading "
        + what + " (HTTP 403" + code + "): the keys the catalog vends or the s3.* properties are not accepted", e);
  }
}
