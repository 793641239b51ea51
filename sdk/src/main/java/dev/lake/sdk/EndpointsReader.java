package dev.lake.sdk;

import java.io.IOException;
import java.util.List;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The batches of a FlightInfo's endpoints, in order, as one ArrowReader: each endpoint's stream
 * is opened when the previous one ends, and every batch is moved into this reader's root.
 */
final class EndpointsReader extends ArrowReader {

  private final FlightSqlClient client;
  private final List<FlightEndpoint> endpoints;
  private final Schema declared;
  private final CallOption[] options;
  private int next;
  private FlightStream stream;

  EndpointsReader(BufferAllocator allocator, FlightSqlClient client, List<FlightEndpoint> endpoints,
      Schema declared, CallOption[] options) {
    super(allocator);
    this.client = client;
    this.endpoints = endpoints;
    this.declared = declared;
    this.options = options;
  }

  @Override
  protected Schema readSchema() {
    // The first stream's schema is the one the batches carry; an empty result has only the
    // schema the FlightInfo declared.
    return openNext() ? stream.getSchema() : declared;
  }

  private boolean openNext() {
    if (next >= endpoints.size()) {
      return false;
    }
    try {
      stream = client.getStream(endpoints.get(next++).getTicket(), options);
      stream.getSchema();
      return true;
    } catch (FlightRuntimeException e) {
      throw LakeException.from(e);
    }
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    getVectorSchemaRoot(); // reads the schema (opening the first stream) before the first batch
    try {
      while (stream != null || openNext()) {
        if (stream.next()) {
          prepareLoadNextBatch();
          try (ArrowRecordBatch batch = new VectorUnloader(stream.getRoot()).getRecordBatch()) {
            loadRecordBatch(batch);
          }
          return true;
        }
        closeStream();
      }
      return false;
    } catch (FlightRuntimeException e) {
      throw LakeException.from(e);
    }
  }

  private void closeStream() {
    FlightStream s = stream;
    stream = null;
    if (s != null) {
      try {
        s.close();
      } catch (Exception e) {
        throw e instanceof FlightRuntimeException f ? LakeException.from(f)
            : new LakeException("closing a result stream failed: " + e, e, false);
      }
    }
  }

  @Override
  public long bytesRead() {
    return 0;
  }

  @Override
  protected void closeReadSource() {
    if (stream != null) {
      FlightStream s = stream;
      stream = null;
      try {
        s.cancel("result closed", null);
      } catch (RuntimeException ignored) {
        // The stream may already be finished; closing below releases it either way.
      }
      try {
        s.close();
      } catch (Exception ignored) {
        // Closing a result never throws: the buffers are released by the stream regardless.
      }
    }
  }
}
