package dev.lake.sql;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.ScanRequest;
import dev.lake.engine.ScanUnit;
import dev.lake.engine.Snapshot;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.engine.VersionInfo;
import dev.lake.engine.VersionNotFoundException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A table held in memory for tests: each append adds one version and one scan unit of Java
 * rows. Scans honour the projection, split units into batches of {@code batchRows}, do not
 * prune, and record every request so tests can see what was pushed down.
 */
final class InMemoryTable implements TableHandle {
  private final Schema schema;
  private final int batchRows;
  private final List<List<Object[]>> appends = new ArrayList<>();
  final List<ScanRequest> requests = Collections.synchronizedList(new ArrayList<>());

  InMemoryTable(Schema schema, int batchRows) {
    this.schema = schema;
    this.batchRows = batchRows;
  }

  /** Appends rows (Java values: Long/Integer, Double, Boolean, String, BigDecimal, LocalDate, Instant). */
  synchronized Version appendRows(List<Object[]> rows) {
    appends.add(List.copyOf(rows));
    return currentVersion();
  }

  @Override
  public TableLocation location() {
    return new TableLocation(URI.create("memory:/" + System.identityHashCode(this)));
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public synchronized Version currentVersion() {
    return Version.of(appends.size());
  }

  @Override
  public List<VersionInfo> versions() {
    List<VersionInfo> out = new ArrayList<>();
    for (long v = 0; v <= currentVersion().number(); v++) {
      out.add(new VersionInfo(Version.of(v), Instant.EPOCH, Optional.empty()));
    }
    return out;
  }

  record Unit(List<Object[]> rows, String name) implements ScanUnit {
    @Override
    public long rowCount() {
      return rows.size();
    }

    @Override
    public String describe() {
      return name;
    }
  }

  @Override
  public synchronized Snapshot snapshot(Version version) {
    if (version.number() > appends.size()) {
      throw new VersionNotFoundException(location(), version, "does not exist");
    }
    List<List<Object[]>> visible = List.copyOf(appends.subList(0, (int) version.number()));
    return new Snapshot() {
      @Override
      public Version version() {
        return version;
      }

      @Override
      public Schema schema() {
        return schema;
      }

      @Override
      public long rowCount() {
        return visible.stream().mapToLong(List::size).sum();
      }

      @Override
      public ScanPlan plan(ScanRequest request) {
        requests.add(request);
        List<ScanUnit> units = new ArrayList<>();
        for (int i = 0; i < visible.size(); i++) {
          units.add(new Unit(visible.get(i), "append-" + (i + 1)));
        }
        return new ScanPlan(units, units.size(), 0);
      }

      @Override
      public ArrowReader open(ScanUnit unit, ScanRequest request, BufferAllocator allocator) {
        return new RowsReader(allocator, ((Unit) unit).rows(), request.columns());
      }
    };
  }

  private final class RowsReader extends ArrowReader {
    private final List<Object[]> rows;
    private final List<String> columns;
    private int position;

    RowsReader(BufferAllocator allocator, List<Object[]> rows, List<String> columns) {
      super(allocator);
      this.rows = rows;
      this.columns = columns;
    }

    @Override
    public boolean loadNextBatch() throws java.io.IOException {
      prepareLoadNextBatch();
      if (position >= rows.size()) {
        return false;
      }
      int count = Math.min(batchRows, rows.size() - position);
      VectorSchemaRoot root = getVectorSchemaRoot();
      for (int c = 0; c < columns.size(); c++) {
        int source = schema.getFields().indexOf(schema.findField(columns.get(c)));
        FieldVector v = root.getVector(c);
        v.allocateNew();
        for (int i = 0; i < count; i++) {
          set(v, i, rows.get(position + i)[source]);
        }
        v.setValueCount(count);
      }
      root.setRowCount(count);
      position += count;
      return true;
    }

    @Override
    public long bytesRead() {
      return 0;
    }

    @Override
    protected void closeReadSource() {}

    @Override
    protected Schema readSchema() {
      List<Field> fields = new ArrayList<>();
      for (String c : columns) {
        fields.add(schema.findField(c));
      }
      return new Schema(fields);
    }
  }

  static void set(FieldVector vector, int i, Object value) {
    if (value == null) {
      vector.setNull(i);
      return;
    }
    switch (vector) {
      case BigIntVector v -> v.setSafe(i, ((Number) value).longValue());
      case IntVector v -> v.setSafe(i, ((Number) value).intValue());
      case SmallIntVector v -> v.setSafe(i, ((Number) value).shortValue());
      case TinyIntVector v -> v.setSafe(i, ((Number) value).byteValue());
      case Float8Vector v -> v.setSafe(i, ((Number) value).doubleValue());
      case Float4Vector v -> v.setSafe(i, ((Number) value).floatValue());
      case BitVector v -> v.setSafe(i, (Boolean) value ? 1 : 0);
      case VarCharVector v -> v.setSafe(i, ((String) value).getBytes(StandardCharsets.UTF_8));
      case DecimalVector v -> v.setSafe(i, ((BigDecimal) value).setScale(v.getScale(), RoundingMode.UNNECESSARY));
      case DateDayVector v -> v.setSafe(i, (int) ((LocalDate) value).toEpochDay());
      case TimeStampMicroTZVector v -> v.setSafe(i, ChronoUnit.MICROS.between(Instant.EPOCH, (Instant) value));
      default -> throw new IllegalArgumentException("no test writer for " + vector.getClass());
    }
  }

  @Override
  public Version append(AppendOperation operation, ArrowReader batches) {
    throw new UnsupportedOperationException("tests append with appendRows");
  }

  @Override
  public Optional<Version> reconcileAppend(AppendOperation operation) {
    return Optional.empty();
  }

  @Override
  public void close() {}
}
