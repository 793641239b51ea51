package dev.lake.engine.log.store;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The storage a log table lives in, reduced to what the commit protocol needs: objects named by
 * keys relative to the table root ({@code _log/00000000000000000001.json}), created once and never
 * changed. Implementations: {@link LocalObjectStore} (a directory) and {@link S3ObjectStore} (a
 * bucket prefix).
 *
 * <p>Every method throws {@link IOException} when the storage fails; the outcome of a write is
 * then unknown. A missing object is never an exception except from {@link #open}, which throws
 * {@link java.nio.file.NoSuchFileException}.
 */
public interface ObjectStore extends AutoCloseable {

  /** One object as a listing reports it. */
  record ObjectInfo(String key, long size, Instant lastModified) {}

  /** A human-readable name of {@code key} including the store root, for messages. */
  String describe(String key);

  /**
   * Creates {@code key} holding {@code bytes}, durably, if no object has that key. Atomic: no
   * reader ever sees a partial object, and of racing writers exactly one wins.
   *
   * @return false if the key already existed; nothing was changed
   */
  boolean putIfAbsent(String key, byte[] bytes) throws IOException;

  /**
   * Starts writing a new object under a fresh, unique key. Nothing is visible at {@code key}
   * in S3 until {@link ObjectWriter#commit()}; on local disk the file grows in place, which is
   * harmless because no commit entry names it yet.
   */
  ObjectWriter create(String key) throws IOException;

  /** The whole object, or empty if absent. */
  Optional<byte[]> get(String key) throws IOException;

  /**
   * Opens {@code key} for positional reads.
   *
   * @throws java.nio.file.NoSuchFileException if absent
   */
  ReadableObject open(String key) throws IOException;

  /**
   * The size of {@code key}, or empty if it is absent. Where the storage allows, one metadata
   * lookup that opens nothing (a reader whose segment is already mapped only checks that the file
   * is still there, unchanged).
   */
  default OptionalLong size(String key) throws IOException {
    try (ReadableObject object = open(key)) {
      return OptionalLong.of(object.size());
    } catch (NoSuchFileException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * Objects whose key starts with {@code prefix} (a directory such as {@code "_log/"}) and sorts
   * after {@code startAfter} (null for all), in key order.
   */
  List<ObjectInfo> list(String prefix, String startAfter) throws IOException;

  /** Deletes {@code key}; absent is fine. */
  void delete(String key) throws IOException;

  /** Deletes every object of the table root. Idempotent. */
  void deleteAll() throws IOException;

  @Override
  void close();

  /** A new object being written sequentially. */
  interface ObjectWriter extends AutoCloseable {
    /**
     * Appends the remaining bytes of {@code buffers}, in order, as one gathering write where the
     * storage allows; the buffers' positions advance to their limits.
     */
    void write(ByteBuffer... buffers) throws IOException;

    /** Bytes written so far. */
    long position();

    /** Makes the object durable and visible under its key; returns its size. */
    long commit() throws IOException;

    /** Discards the object if it was not committed. Idempotent. */
    @Override
    void close() throws IOException;
  }

  /** An object opened for positional reads. */
  interface ReadableObject extends AutoCloseable {
    long size();

    /**
     * Fills {@code target} from {@code position}.
     *
     * @throws java.io.EOFException if the object ends first
     */
    void read(long position, ByteBuffer target) throws IOException;

    /**
     * Maps the whole object read-only into memory that lives until {@code arena} is closed, or
     * returns empty where the storage has no file to map (S3: readers copy with {@link #read}).
     *
     * <p>Contract: the object must not be truncated or rewritten while mapped; touching a page
     * past the end of a truncated file raises SIGBUS, which no exception reports. Segments
     * satisfy this: they are written once under a fresh name, never modified, and removed only
     * by expiry, which unlinks them (a mapping of an unlinked file stays valid until unmapped).
     */
    default Optional<MemorySegment> map(Arena arena) throws IOException {
      return Optional.empty();
    }

    @Override
    void close() throws IOException;
  }
}
