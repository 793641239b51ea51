package dev.lake.metastore;

/** A key or prefix breaks the rules of {@link Keys}. Nothing was read or written. */
public final class InvalidKeyException extends MetaStoreException {
  private static final long serialVersionUID = 1L;

  public InvalidKeyException(String key, String problem) {
    super("invalid key '" + key + "': " + problem);
  }
}
