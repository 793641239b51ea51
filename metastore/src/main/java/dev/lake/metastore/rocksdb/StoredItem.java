package dev.lake.metastore.rocksdb;

import dev.lake.metastore.MetaStoreException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;

/**
 * How a RocksDB value is laid out: one kind byte (1 = value, 2 = tombstone of a fenced delete),
 * the big-endian epoch of the write that made it, then the value's bytes (none for a tombstone).
 */
record StoredItem(long epoch, Optional<byte[]> value) {

  private static final byte VALUE = 1;
  private static final byte TOMBSTONE = 2;
  private static final int HEADER = 1 + Long.BYTES;

  static byte[] encodeValue(long epoch, byte[] value) {
    return ByteBuffer.allocate(HEADER + value.length).put(VALUE).putLong(epoch).put(value).array();
  }

  static byte[] encodeTombstone(long epoch) {
    return ByteBuffer.allocate(HEADER).put(TOMBSTONE).putLong(epoch).array();
  }

  static StoredItem decode(String key, byte[] stored) {
    if (stored.length < HEADER || (stored[0] != VALUE && stored[0] != TOMBSTONE)
        || (stored[0] == TOMBSTONE && stored.length != HEADER)) {
      throw new MetaStoreException("the stored item of '" + key
          + "' is not in the metastore's encoding (kind byte " + (stored.length == 0 ? "missing"
          : stored[0]) + ", " + stored.length + " bytes); was the directory written by another"
          + " program?");
    }
    long epoch = ByteBuffer.wrap(stored, 1, Long.BYTES).getLong();
    return new StoredItem(epoch, stored[0] == TOMBSTONE ? Optional.empty()
        : Optional.of(Arrays.copyOfRange(stored, HEADER, stored.length)));
  }
}
