package dev.lake.sdk;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * An append whose outcome is not known: every attempt within the retry window failed in a way
 * that may have committed (the server unreachable, a lost reply). It keeps the operation's
 * identity — table, operation id and the exact payload — so {@link LakeClient#resume} repeats the
 * same operation, which the server answers with the version it committed, or commits now: one
 * row set, never two. A client with a resume directory also keeps it there as a checkpoint file,
 * written durably before the first attempt, so another process can resume it ({@link
 * LakeClient#pendingAppends}). Immutable.
 */
public final class PendingAppend {

  private static final byte[] MAGIC = "lake-pending-append-1\n".getBytes(StandardCharsets.US_ASCII);

  private final String table;
  private final UUID operationId;
  private final long rows;
  private final byte[] payload;
  private final Path checkpoint;

  PendingAppend(String table, UUID operationId, long rows, byte[] payload, Path checkpoint) {
    this.table = Objects.requireNonNull(table, "table");
    this.operationId = Objects.requireNonNull(operationId, "operationId");
    this.rows = rows;
    this.payload = Objects.requireNonNull(payload, "payload");
    this.checkpoint = checkpoint;
  }

  /** The table, as the append named it ({@code namespace.table}). */
  public String table() {
    return table;
  }

  /** The operation id, generated once when the append was first called. */
  public UUID operationId() {
    return operationId;
  }

  /** The rows the payload carries. */
  public long rows() {
    return rows;
  }

  /** The checkpoint file that keeps it, if the client that made it has a resume directory. */
  public Optional<Path> checkpoint() {
    return Optional.ofNullable(checkpoint);
  }

  /** The payload, an Arrow IPC stream: the same bytes on every attempt. */
  byte[] payload() {
    return payload;
  }

  /**
   * Reads a checkpoint file written by {@link #writeTo}.
   *
   * @throws java.nio.file.NoSuchFileException if it does not exist
   * @throws IOException if it cannot be read, or is not a whole, intact checkpoint (the message
   *     names the file)
   */
  public static PendingAppend load(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    if (bytes.length < MAGIC.length + 8
        || !Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw new IOException("not a lake pending-append checkpoint: " + file);
    }
    int end = bytes.length - 8;
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, end);
    long stored = java.nio.ByteBuffer.wrap(bytes, end, 8).getLong();
    if (crc.getValue() != stored) {
      throw new IOException("pending-append checkpoint " + file + " is damaged (checksum mismatch)");
    }
    try (DataInputStream in = new DataInputStream(
        new java.io.ByteArrayInputStream(bytes, MAGIC.length, end - MAGIC.length))) {
      String table = in.readUTF();
      UUID id = new UUID(in.readLong(), in.readLong());
      long rows = in.readLong();
      byte[] payload = new byte[in.readInt()];
      in.readFully(payload);
      return new PendingAppend(table, id, rows, payload, file);
    }
  }

  /** This append with its checkpoint file in {@code directory}, written and synced. */
  PendingAppend writeTo(Path directory) throws IOException {
    Files.createDirectories(directory);
    Path file = directory.resolve(operationId + ".append");
    ByteArrayOutputStream buffer = new ByteArrayOutputStream(payload.length + 128);
    buffer.write(MAGIC);
    try (DataOutputStream out = new DataOutputStream(buffer)) {
      out.writeUTF(table);
      out.writeLong(operationId.getMostSignificantBits());
      out.writeLong(operationId.getLeastSignificantBits());
      out.writeLong(rows);
      out.writeInt(payload.length);
      out.write(payload);
      CRC32C crc = new CRC32C();
      byte[] written = buffer.toByteArray();
      crc.update(written, 0, written.length);
      out.writeLong(crc.getValue());
    }
    Path temp = directory.resolve(operationId + ".append.tmp");
    try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      channel.write(java.nio.ByteBuffer.wrap(buffer.toByteArray()));
      channel.force(true);
    }
    try {
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
    }
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    } catch (IOException ignored) {
      // Some file systems cannot sync a directory; the file itself is synced.
    }
    return new PendingAppend(table, operationId, rows, payload, file);
  }

  /** Deletes the checkpoint file, if any (the append's outcome is known). */
  void forget() throws IOException {
    if (checkpoint != null) {
      try {
        Files.delete(checkpoint);
      } catch (NoSuchFileException alreadyGone) {
        // Another process resumed it first.
      }
    }
  }

  @Override
  public String toString() {
    return "PendingAppend[" + table + ", operation " + operationId + ", " + rows + " rows"
        + (checkpoint == null ? "" : ", checkpoint " + checkpoint) + "]";
  }
}
