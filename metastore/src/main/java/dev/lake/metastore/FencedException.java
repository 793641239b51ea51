package dev.lake.metastore;

/**
 * A write was refused because its key was last written under a newer lease epoch than the
 * writer's: the writer has been superseded as leader and must stop writing. Nothing was changed.
 * Unlike a lost compare-and-set (a {@code false} result), retrying with the same fence can never
 * succeed.
 */
public final class FencedException extends MetaStoreException {
  private static final long serialVersionUID = 1L;

  private final String key;
  private final long writerEpoch;
  private final long itemEpoch;

  public FencedException(String key, long writerEpoch, long itemEpoch) {
    super("write to '" + key + "' under lease epoch " + writerEpoch
        + " refused: the key was last written under epoch " + itemEpoch);
    this.key = key;
    this.writerEpoch = writerEpoch;
    this.itemEpoch = itemEpoch;
  }

  public String key() {
    return key;
  }

  /** The epoch the refused write carried. */
  public long writerEpoch() {
    return writerEpoch;
  }

  /** The newer epoch the key was last written under. */
  public long itemEpoch() {
    return itemEpoch;
  }
}
