package dev.lake.catalog;

import dev.lake.metastore.MetaStore;
import java.util.Optional;

/**
 * Reads and moves operation records by compare-and-set on their exact bytes, so two writers can
 * never both move one record (the second finds other bytes), and under a fenced store a superseded
 * leader cannot move a record its successor has written.
 */
final class OperationRecords {

  /** A record as stored, with the bytes the next move must find. */
  record Stored(String key, OperationRecord record, byte[] bytes) {}

  private final MetaStore store;

  OperationRecords(MetaStore store) {
    this.store = store;
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
    return new Stored(from.key(), to, bytes);
  }
}
