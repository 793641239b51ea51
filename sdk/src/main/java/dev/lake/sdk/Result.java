package dev.lake.sdk;

import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import dev.lake.engine.DataLocationCodec;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.util.Text;

/** A {@link QueryResult} over an {@link EndpointsReader}. */
final class Result implements QueryResult {

  private final EndpointsReader reader;
  private final Runnable onClose;
  private boolean closed;

  /** @param onClose closes the prepared statement, if any; must not throw */
  Result(EndpointsReader reader, Runnable onClose) {
    this.reader = reader;
    this.onClose = onClose;
  }

  @Override
  public synchronized ArrowReader reader() {
    if (closed) {
      throw new IllegalStateException("the query result is closed");
    }
    return reader;
  }

  @Override
  public Iterable<Row> rows() {
    ArrowReader batches = reader();
    return () -> new Rows(batches);
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      reader.close();
    } catch (IOException | RuntimeException ignored) {
      // Closing a result never throws; the reader releases its buffers before it can fail.
    } finally {
      onClose.run();
    }
  }

  /** Rows copied out of the reader's batches one at a time. */
  private static final class Rows implements Iterator<Row> {
    private final ArrowReader reader;
    private Map<String, Integer> columns;
    private int index;
    private int count;
    private boolean done;

    Rows(ArrowReader reader) {
      this.reader = reader;
    }

    @Override
    public boolean hasNext() {
      while (!done && index >= count) {
        try {
          if (reader.loadNextBatch()) {
            index = 0;
            count = reader.getVectorSchemaRoot().getRowCount();
          } else {
            done = true;
          }
        } catch (IOException e) {
          throw new LakeException("reading the result failed: " + e, e, false);
        }
      }
      return !done;
    }

    @Override
    public Row next() {
      if (!hasNext()) {
        throw new NoSuchElementException("no more rows");
      }
      VectorSchemaRoot root;
      try {
        root = reader.getVectorSchemaRoot();
      } catch (IOException e) {
        throw new LakeException("reading the result failed: " + e, e, false);
      }
      List<FieldVector> vectors = root.getFieldVectors();
      if (columns == null) {
        Map<String, Integer> names = new LinkedHashMap<>();
        for (int i = 0; i < vectors.size(); i++) {
          names.putIfAbsent(vectors.get(i).getName(), i);
        }
        columns = java.util.Collections.unmodifiableMap(new HashMap<>(names));
      }
      Object[] values = new Object[vectors.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = value(vectors.get(i), index);
      }
      index++;
      return new Row(columns, values);
    }

    private static Object value(FieldVector vector, int row) {
      if (vector.isNull(row)) {
        return null;
      }
      return switch (vector) {
        case DateDayVector d -> LocalDate.ofEpochDay(d.get(row));
        case StructVector s when DataLocationCodec.isFile(s.getField()) ->
            DataLocationCodec.read(s, row);
        case TimeStampVector t when t.getField().getType() instanceof ArrowType.Timestamp ts
            && ts.getTimezone() != null -> instant(t.get(row), ts.getUnit());
        default -> vector.getObject(row) instanceof Text text ? text.toString()
            : vector.getObject(row);
      };
    }

    private static Instant instant(long value, org.apache.arrow.vector.types.TimeUnit unit) {
      return switch (unit) {
        case SECOND -> Instant.ofEpochSecond(value);
        case MILLISECOND -> Instant.ofEpochMilli(value);
        case MICROSECOND -> Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000L),
            Math.floorMod(value, 1_000_000L) * 1_000L);
        case NANOSECOND -> Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000_000L),
            Math.floorMod(value, 1_000_000_000L));
      };
    }
  }
}
