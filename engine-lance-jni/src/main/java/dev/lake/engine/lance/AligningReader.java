package dev.lake.engine.lance;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A view of a caller's batches for handing to Lance through the C Data Interface, whose Rust
 * reader requires every buffer to be aligned for its widest value (16 bytes: a 128-bit decimal)
 * and aborts the process on one that is not. Arrow Java sets no such rule, and lake's own
 * batches break it: a log-engine block slices each column's buffers out of one read, back to
 * back (an Int64 column's values start right after its 1-byte validity bitmap). Aligned buffers
 * are handed on as they are; a misaligned one is copied into an aligned buffer of this reader's
 * allocator. Closing this reader releases its own batch and leaves the source open.
 */
final class AligningReader extends ArrowReader {

  /** The alignment the C Data Interface consumer (arrow-rs) checks, for any value type. */
  static final int ALIGNMENT = 16;

  private final ArrowReader source;
  private final BufferAllocator allocator;

  AligningReader(BufferAllocator allocator, ArrowReader source) {
    super(allocator);
    this.allocator = allocator;
    this.source = source;
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    prepareLoadNextBatch();
    if (!source.loadNextBatch()) {
      return false;
    }
    VectorSchemaRoot from = source.getVectorSchemaRoot();
    List<ArrowBuf> copies = new ArrayList<>();
    try (ArrowRecordBatch unloaded = new VectorUnloader(from).getRecordBatch()) {
      List<ArrowBuf> buffers = new ArrayList<>(unloaded.getBuffers().size());
      for (ArrowBuf buffer : unloaded.getBuffers()) {
        if (buffer.capacity() == 0 || buffer.memoryAddress() % ALIGNMENT == 0) {
          buffers.add(buffer);
        } else {
          ArrowBuf copy = allocator.buffer(buffer.capacity());
          copies.add(copy);
          copy.setBytes(0, buffer, 0, buffer.capacity());
          copy.writerIndex(buffer.writerIndex());
          buffers.add(copy);
        }
      }
      try (ArrowRecordBatch aligned = new ArrowRecordBatch(unloaded.getLength(),
          unloaded.getNodes(), buffers, unloaded.getBodyCompression(),
          unloaded.getVariadicBufferCounts(), true)) {
        new VectorLoader(getVectorSchemaRoot()).load(aligned);
      }
    } finally {
      // The loaded vectors hold their own references to the copies.
      copies.forEach(ArrowBuf::close);
    }
    return true;
  }

  @Override
  public Dictionary lookup(long id) {
    return source.lookup(id);
  }

  @Override
  public long bytesRead() {
    return source.bytesRead();
  }

  /** The source is the caller's: not closed here. */
  @Override
  protected void closeReadSource() {}

  @Override
  protected Schema readSchema() throws IOException {
    return source.getVectorSchemaRoot().getSchema();
  }
}
