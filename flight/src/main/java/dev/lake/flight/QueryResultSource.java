package dev.lake.flight;

import dev.lake.exec.QueryControl;
import dev.lake.sql.PreparedQuery;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/** The sources a {@link ResultStream} can stream: a running query, or a ready list of messages. */
final class QueryResultSource implements ResultStream.Source {

  private final BufferAllocator allocator;
  private final ArrowReader reader;
  private final org.apache.arrow.vector.types.pojo.Schema schema;
  private boolean schemaSent;

  /**
   * Executes {@code query} under {@code control} with buffers from {@code allocator}, which the
   * source takes over and closes after the reader.
   */
  QueryResultSource(PreparedQuery query, BufferAllocator allocator, QueryControl control) {
    this.allocator = allocator;
    try {
      this.schema = ColumnMetadata.of(query);
      this.reader = query.execute(allocator, control);
    } catch (RuntimeException e) {
      allocator.close();
      throw e;
    }
  }

  @Override
  public OutgoingMessage next() throws IOException {
    VectorSchemaRoot root = reader.getVectorSchemaRoot();
    if (!schemaSent) {
      schemaSent = true;
      return OutgoingMessage.of(FlightIpc.schemaMessage(schema).toByteArray());
    }
    return reader.loadNextBatch() ? FlightIpc.outgoingBatch(root) : null;
  }

  @Override
  public void close() {
    try {
      reader.close();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } finally {
      allocator.close();
    }
  }

  /** A result computed up front (metadata commands). */
  static ResultStream.Source of(List<Flight.FlightData> messages) {
    Iterator<Flight.FlightData> iterator = messages.iterator();
    return new ResultStream.Source() {
      @Override
      public OutgoingMessage next() {
        return iterator.hasNext() ? OutgoingMessage.of(iterator.next().toByteArray()) : null;
      }

      @Override
      public void close() {}
    };
  }
}
