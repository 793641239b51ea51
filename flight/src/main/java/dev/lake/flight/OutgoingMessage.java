package dev.lake.flight;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowBuffer;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;

/**
 * One {@code DoGet} message as it goes on the wire: the gRPC length prefix and the {@code
 * FlightData} protobuf, whose {@code data_body} is the Arrow buffers themselves, not a copy. It is
 * one direct composite buffer: a small direct head (prefix, protobuf tags, flatbuffer header),
 * then each body buffer wrapped where it lies, with zero padding to the offsets the header
 * announces, so Netty writes it to the socket with no copy.
 *
 * <p>Ownership: the message holds a reference to every body buffer (an {@link ArrowRecordBatch})
 * from {@link #batch} until {@link #close}, which releases them and the head exactly once, however
 * often it is called. The writer closes it when the write's future completes (written, failed
 * or the stream reset), or at once when the message is never written; the buffers' allocator must
 * outlive every open message.
 */
final class OutgoingMessage implements AutoCloseable {

  /** gRPC's message prefix: a compressed flag byte and a 4-byte length. */
  static final int PREFIX_BYTES = 5;
  /** Zeros for padding, read-only slices of one direct buffer no release can free. */
  private static final ByteBuf ZEROS =
      Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(64)));

  private final CompositeByteBuf frame;
  private final int size;
  private final AutoCloseable owner;
  private boolean closed;

  private OutgoingMessage(CompositeByteBuf frame, int size, AutoCloseable owner) {
    this.frame = frame;
    this.size = size;
    this.owner = owner;
  }

  /** A message already serialized (the schema, a metadata answer): copied into the head. */
  static OutgoingMessage of(byte[] flightData) {
    ByteBuf head = directHead(PREFIX_BYTES + flightData.length);
    head.writeByte(0).writeInt(flightData.length).writeBytes(flightData);
    CompositeByteBuf frame = Unpooled.compositeBuffer(1);
    frame.addComponent(true, head);
    return new OutgoingMessage(frame, flightData.length, null);
  }

  /** The current contents of {@code root} as one record-batch message over its buffers. */
  static OutgoingMessage batch(VectorSchemaRoot root, IpcOption option) {
    ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch();
    CompositeByteBuf frame = null;
    try {
      ByteBuffer metadata = MessageSerializer.serializeMetadata(batch, option);
      byte[] header = new byte[metadata.remaining()];
      metadata.get(header);
      long bodyLength = batch.computeBodyLength();
      int size = FlightIpc.flightDataSize(header.length, bodyLength);
      int headBytes = (int) (size - bodyLength);
      byte[] protobufHead = new byte[headBytes];
      CodedOutputStream out = CodedOutputStream.newInstance(protobufHead);
      out.writeByteArray(Flight.FlightData.DATA_HEADER_FIELD_NUMBER, header);
      out.writeTag(Flight.FlightData.DATA_BODY_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt64NoTag(bodyLength);
      out.checkNoSpaceLeft();
      List<ArrowBuf> buffers = batch.getBuffers();
      List<ArrowBuffer> layout = batch.getBuffersLayout();
      frame = Unpooled.compositeBuffer(2 + 2 * buffers.size());
      ByteBuf head = directHead(PREFIX_BYTES + headBytes);
      head.writeByte(0).writeInt(size).writeBytes(protobufHead);
      // Added once written: a component is the readable bytes it has when added.
      frame.addComponent(true, head);
      long at = 0;
      for (int i = 0; i < buffers.size(); i++) {
        ArrowBuffer slot = layout.get(i);
        at = pad(frame, at, slot.getOffset());
        if (slot.getSize() > 0) {
          frame.addComponent(true,
              Unpooled.wrappedBuffer(buffers.get(i).nioBuffer(0, (int) slot.getSize())));
          at += slot.getSize();
        }
      }
      pad(frame, at, bodyLength);
      return new OutgoingMessage(frame, size, batch);
    } catch (RuntimeException | java.io.IOException e) {
      if (frame != null) {
        frame.release();
      }
      batch.close();
      if (e instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new java.io.UncheckedIOException((java.io.IOException) e);
    }
  }

  // Freed by the garbage collector once nothing (Netty included) refers to it.
  private static ByteBuf directHead(int bytes) {
    return Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(bytes)).clear();
  }

  private static long pad(CompositeByteBuf frame, long at, long to) {
    while (at < to) {
      int n = (int) Math.min(ZEROS.capacity(), to - at);
      frame.addComponent(true, ZEROS.slice(0, n));
      at += n;
    }
    return at;
  }

  /** The protobuf message's bytes (without the gRPC prefix). */
  int size() {
    return size;
  }

  /** The whole frame, prefix included, for the HTTP/2 response; valid until {@link #close}. */
  Buffer framed() {
    return BufferInternal.buffer(frame.duplicate());
  }

  /** A heap copy of the protobuf message, for a gRPC response that frames it itself. */
  Buffer copiedPayload() {
    byte[] bytes = new byte[size];
    frame.getBytes(PREFIX_BYTES, bytes);
    return Buffer.buffer(bytes);
  }

  /** Releases the head and the body buffers; later calls do nothing. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      frame.release();
    } finally {
      if (owner != null) {
        try {
          owner.close();
        } catch (Exception e) {
          throw new IllegalStateException("releasing a DoGet message's buffers failed", e);
        }
      }
    }
  }
}
