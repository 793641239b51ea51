package dev.lake.metastore;

/** A scan continuation token was not produced by a scan of this prefix. Nothing was read. */
public final class InvalidContinuationException extends MetaStoreException {
  private static final long serialVersionUID = 1L;

  public InvalidContinuationException(String message) {
    super(message);
  }
}
