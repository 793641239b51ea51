package dev.lake.catalog;

import dev.lake.metastore.MetaStore;
import dev.lake.metastore.MetaStoreException;
import java.lang.System.Logger.Level;
import java.util.Optional;

/**
 * Reads and moves operation records by compare-and-set on their exact bytes, so two writers can
 * never both move one record (the second finds other bytes), and under a fenced store a superseded
 * leader cannot move a record its successor has written.
 *
 * <p>Keeps the open-operations index: an entry under {@link #OPEN_PREFIX} is written before a
 * record is created (always {@code reserved}) and deleted only after the record reached a
 * terminal state. By that order the index holds every record in progress, and possibly entries
 * whose record is finished or was never written (a crash between the two writes), which the next
 * takeover removes. A takeover reads the index, not the retained history.
 */
final class OperationRecords {

  /** A record as stored, with the bytes the next move must find. */
  record Stored(String key, OperationRecord record, byte[] bytes) {}

  /** Where the open-operations index lives: one entry per record that may be in progress. */
  static final String OPEN_PREFIX = "opopen/";
  /** Present once every record in progress of the store has its index entry. */
  static final String INDEX_MARKER = "gen/opindex";
  private static final byte[] OPEN = {'1'};

  private static final System.Logger LOG = System.getLogger(OperationRecords.class.getName());

  private final MetaStore store;

  OperationRecords(MetaStore store) {
    this.store = store;
  }

  /** The index entry of the record at {@code recordKey}. */
  static String openKey(String recordKey) {
    if (!recordKey.startsWith(OperationRecord.PREFIX)) {
      throw new IllegalArgumentException(recordKey + " is not an operation record's key");
    }
    return OPEN_PREFIX + recordKey.substring(OperationRecord.PREFIX.length());
  }

  /** The record key an index entry stands for. */
  static String recordKey(String openKey) {
    if (!openKey.startsWith(OPEN_PREFIX)) {
      throw new IllegalArgumentException(openKey + " is not an open-operations index entry");
    }
    return OperationRecord.PREFIX + openKey.substring(OPEN_PREFIX.length());
  }

  /** Whether the store's index is complete (see {@link #INDEX_MARKER}). */
  boolean indexed() {
    return store.get(INDEX_MARKER).isPresent();
  }

  /** Records that the store's index is complete from now on. */
  void markIndexed() {
    store.compareAndSet(INDEX_MARKER, Optional.empty(), OPEN); // false: already marked
  }

  /** Writes the index entry of the record at {@code recordKey} (nothing if it is there). */
  void markOpen(String recordKey) {
    store.compareAndSet(openKey(recordKey), Optional.empty(), OPEN);
  }

  /** Removes the index entry of the record at {@code recordKey}, if any. */
  void markFinished(String recordKey) {
    store.deleteIfEquals(openKey(recordKey), OPEN);
  }

  Optional<Stored> read(String key) {
    return store.get(key).map(bytes -> new Stored(key, OperationRecord.decode(key, bytes), bytes));
  }

  /**
   * Writes {@code record} where {@code previous} (an aborted attempt) or nothing was.
   *
   * @throws ConcurrentChangeException if the record changed meanwhile; nothing written
   */
  Stored create(String key, Optional<Stored> previous, OperationRecord record) {
    byte[] bytes = record.encode();
    if (!record.state().terminal()) {
      markOpen(key); // first: the index must hold every record in progress
    }
    if (!store.compareAndSet(key, previous.map(Stored::bytes), bytes)) {
      throw new ConcurrentChangeException(record.ident(), "recording operation " + record.operationId());
    }
    return new Stored(key, record, bytes);
  }

  /**
   * Moves the record from {@code from} to {@code to}.
   *
   * @throws ConcurrentChangeException if the record changed meanwhile; nothing written
   */
  Stored move(Stored from, OperationRecord to) {
    byte[] bytes = to.encode();
    if (!store.compareAndSet(from.key(), Optional.of(from.bytes()), bytes)) {
      throw new ConcurrentChangeException(to.ident(), "recording operation " + to.operationId()
          + " as " + to.state().code());
    }
    if (to.state().terminal()) {
      try {
        markFinished(from.key());
      } catch (MetaStoreException e) {
        // The operation is finished either way; its entry is removed by the next takeover.
        LOG.log(Level.DEBUG, "index entry of " + from.key() + " left for the next takeover", e);
      }
    }
    return new Stored(from.key(), to, bytes);
  }
}
