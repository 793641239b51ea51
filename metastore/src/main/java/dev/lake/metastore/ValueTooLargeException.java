package dev.lake.metastore;

/** A value is over {@link Keys#MAX_VALUE_BYTES}. Nothing was written. */
public final class ValueTooLargeException extends MetaStoreException {
  private static final long serialVersionUID = 1L;

  public ValueTooLargeException(String key, int size) {
    super("value of '" + key + "' is " + size + " bytes; the limit is " + Keys.MAX_VALUE_BYTES);
  }
}
