package dev.lake.engine.lance;

import java.io.IOException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An {@link ArrowReader} that hands out another reader's root and batches unchanged (no copy),
 * and when closed releases the source and the native resources it reads from (for scans).
 */
final class ForwardingReader extends ArrowReader {

  private final ArrowReader source;
  private final List<AutoCloseable> owned;
  private long rows;

  private ForwardingReader(
      BufferAllocator allocator, ArrowReader source, List<AutoCloseable> owned) {
    super(allocator);
    this.source = source;
    this.owned = owned;
  }

  /**
   * A reader that, when closed, closes {@code source} and then {@code owned} in order (native
   * scanners before the datasets they read). Transfers ownership of all of them.
   */
  static ForwardingReader owning(BufferAllocator allocator, ArrowReader source, AutoCloseable... owned) {
    return new ForwardingReader(allocator, source, List.of(owned));
  }

  /** Rows handed out so far. */
  long rows() {
    return rows;
  }

  @Override
  public VectorSchemaRoot getVectorSchemaRoot() throws IOException {
    return source.getVectorSchemaRoot();
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    boolean loaded = source.loadNextBatch();
    if (loaded) {
      rows += source.getVectorSchemaRoot().getRowCount();
    }
    return loaded;
  }

  @Override
  public Dictionary lookup(long id) {
    return source.lookup(id);
  }

  @Override
  public long bytesRead() {
    return source.bytesRead();
  }

  @Override
  protected void closeReadSource() throws IOException {
    Throwable failure = null;
    try {
      source.close();
    } catch (Throwable t) {
      failure = t;
    }
    for (AutoCloseable c : owned) {
      try {
        c.close();
      } catch (Throwable t) {
        if (failure == null) {
          failure = t;
        } else {
          failure.addSuppressed(t);
        }
      }
    }
    if (failure instanceof IOException io) {
      throw io;
    }
    if (failure instanceof RuntimeException re) {
      throw re;
    }
    if (failure instanceof Error err) {
      throw err;
    }
    if (failure != null) {
      throw new IOException(failure.getMessage(), failure);
    }
  }

  @Override
  protected Schema readSchema() throws IOException {
    return source.getVectorSchemaRoot().getSchema();
  }
}
