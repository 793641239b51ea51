package dev.lake.sql.tpch;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableHandle;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * TPC-H data from the official generator (the {@code tpch} Java port of dbgen), loaded into a
 * lake table and into DuckDB with the same column types: identifiers BIGINT, integers INTEGER,
 * money and quantities DOUBLE, dates DATE, text VARCHAR.
 */
public final class TpchData {
  private TpchData() {}

  public static Schema schema(TpchTable<?> table) {
    List<Field> fields = new ArrayList<>();
    for (TpchColumn<?> c : table.getColumns()) {
      ArrowType type = switch (c.getType().getBase()) {
        case IDENTIFIER -> new ArrowType.Int(64, true);
        case INTEGER -> new ArrowType.Int(32, true);
        case DOUBLE -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
        case DATE -> new ArrowType.Date(DateUnit.DAY);
        case VARCHAR -> ArrowType.Utf8.INSTANCE;
      };
      fields.add(Field.notNullable(c.getColumnName(), type));
    }
    return new Schema(fields);
  }

  /** Appends all rows of {@code table} at {@code scale}, {@code chunkRows} rows per append. */
  public static <E extends TpchEntity> long load(TpchTable<E> table, double scale, TableHandle handle,
      BufferAllocator allocator, int chunkRows) {
    Schema schema = schema(table);
    List<TpchColumn<E>> columns = table.getColumns();
    long total = 0;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      int n = 0;
      root.allocateNew();
      for (E row : table.createGenerator(scale, 1, 1)) {
        for (int c = 0; c < columns.size(); c++) {
          TpchColumn<E> col = columns.get(c);
          FieldVector v = root.getVector(c);
          switch (col.getType().getBase()) {
            case IDENTIFIER -> ((BigIntVector) v).setSafe(n, col.getIdentifier(row));
            case INTEGER -> ((IntVector) v).setSafe(n, col.getInteger(row));
            case DOUBLE -> ((Float8Vector) v).setSafe(n, col.getDouble(row));
            case DATE -> ((DateDayVector) v).setSafe(n, col.getDate(row));
            case VARCHAR -> ((VarCharVector) v).setSafe(n, col.getString(row).getBytes(StandardCharsets.UTF_8));
          }
        }
        n++;
        total++;
        if (n == chunkRows) {
          append(table, handle, root, n, allocator);
          root.clear();
          root.allocateNew();
          n = 0;
        }
      }
      if (n > 0 || total == 0) {
        append(table, handle, root, n, allocator);
      }
    }
    return total;
  }

  private static void append(TpchTable<?> table, TableHandle handle, VectorSchemaRoot root, int rows,
      BufferAllocator allocator) {
    root.setRowCount(rows);
    ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch();
    try (RecordBatchReader reader = new RecordBatchReader(allocator, root.getSchema(), List.of(batch))) {
      handle.append(new AppendOperation("tpch", table.getTableName(), UUID.randomUUID(),
          String.format("%064x", System.nanoTime())), reader);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Creates {@code table} in DuckDB and loads the same rows through a CSV file in {@code dir}. */
  public static <E extends TpchEntity> void loadDuckDb(TpchTable<E> table, double scale, Connection duck,
      Path dir) throws IOException, SQLException {
    List<TpchColumn<E>> columns = table.getColumns();
    StringBuilder ddl = new StringBuilder("CREATE TABLE " + table.getTableName() + " (");
    for (int c = 0; c < columns.size(); c++) {
      TpchColumn<E> col = columns.get(c);
      ddl.append(c == 0 ? "" : ", ").append(col.getColumnName()).append(' ').append(switch (col.getType().getBase()) {
        case IDENTIFIER -> "BIGINT NOT NULL";
        case INTEGER -> "INTEGER NOT NULL";
        case DOUBLE -> "DOUBLE NOT NULL";
        case DATE -> "DATE NOT NULL";
        case VARCHAR -> "VARCHAR NOT NULL";
      });
    }
    Path file = dir.resolve(table.getTableName() + ".tbl");
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (E row : table.createGenerator(scale, 1, 1)) {
        for (int c = 0; c < columns.size(); c++) {
          TpchColumn<E> col = columns.get(c);
          if (c > 0) {
            out.write('|');
          }
          out.write(switch (col.getType().getBase()) {
            case IDENTIFIER -> Long.toString(col.getIdentifier(row));
            case INTEGER -> Integer.toString(col.getInteger(row));
            case DOUBLE -> Double.toString(col.getDouble(row));
            case DATE -> LocalDate.ofEpochDay(col.getDate(row)).toString();
            case VARCHAR -> col.getString(row);
          });
        }
        out.write('\n');
      }
    }
    try (Statement s = duck.createStatement()) {
      s.execute(ddl.append(")").toString());
      s.execute("COPY " + table.getTableName() + " FROM '" + file + "' (DELIMITER '|', HEADER false, QUOTE '', ESCAPE '')");
    }
    Files.delete(file);
  }
}
