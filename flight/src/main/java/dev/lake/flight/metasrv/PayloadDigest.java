package dev.lake.flight.metasrv;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.ipc.message.ArrowBuffer;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * SHA-256 over an append stream's IPC messages exactly as Flight carries them: for the schema
 * message and then every record batch, its flatbuffer header ({@code data_header}) followed by its
 * body ({@code data_body}: the buffers at the offsets the header announces, zero padded to 8
 * bytes). The client digests what it is about to send; the server digests what it received.
 * Not thread-safe.
 */
final class PayloadDigest {

  private static final byte[] ZEROS = new byte[8];
  private final MessageDigest digest;

  PayloadDigest() {
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** A received message: header bytes then body bytes. */
  void update(ByteBuffer header, ByteBuffer body) {
    digest.update(header);
    digest.update(body);
  }

  /** The schema message as Flight's client sends it. */
  void update(Schema schema) {
    digest.update(MessageSerializer.serializeMetadata(schema, IpcOption.DEFAULT));
  }

  /** A record batch as Flight's client sends it; returns the message's size in bytes. */
  long update(ArrowRecordBatch batch) {
    ByteBuffer header = MessageSerializer.serializeMetadata(batch, IpcOption.DEFAULT);
    long size = header.remaining();
    digest.update(header);
    long written = 0;
    for (int i = 0; i < batch.getBuffers().size(); i++) {
      ArrowBuffer slot = batch.getBuffersLayout().get(i);
      while (written < slot.getOffset()) {
        int pad = (int) Math.min(ZEROS.length, slot.getOffset() - written);
        digest.update(ZEROS, 0, pad);
        written += pad;
      }
      ArrowBuf buffer = batch.getBuffers().get(i);
      digest.update(buffer.nioBuffer(0, (int) slot.getSize()));
      written += slot.getSize();
    }
    long body = batch.computeBodyLength();
    while (written < body) {
      int pad = (int) Math.min(ZEROS.length, body - written);
      digest.update(ZEROS, 0, pad);
      written += pad;
    }
    return size + body;
  }

  /** The digest as 64 lowercase hex digits; the digest is reset. */
  String hex() {
    return HexFormat.of().formatHex(digest.digest());
  }
}
