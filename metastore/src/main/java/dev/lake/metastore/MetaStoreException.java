package dev.lake.metastore;

/**
 * A failure of the metadata store. A plain {@code MetaStoreException} means the backend failed and
 * the outcome of a write is unknown; subclasses are precise refusals that changed nothing.
 */
public class MetaStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public MetaStoreException(String message) {
    super(message);
  }

  public MetaStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
