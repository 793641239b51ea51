package dev.lake.sql;

import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import dev.lake.engine.RecordBatchReader;
import dev.lake.exec.SqlType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * {@code INSERT INTO t [(columns)] VALUES ... | query}. Calcite validates it (columns, counts,
 * assignability, NOT NULL columns left out); the source runs as a query whose columns are cast
 * to the target columns' types; every row is then converted to the table's exact schema and
 * checked ({@link InsertRows}) in memory, within the engine's per-query budget, and only then
 * appended as one new version of the incarnation the statement was planned against.
 *
 * <p>A VALUES of parameters ({@code VALUES (?, ?, ?)}, what ADBC's bulk ingest and JDBC batches
 * send, or {@code VALUES (?, 'lab', ?)} beside constants, see {@link ValuesLayout}) is not
 * planned as a query: each bound parameter row is one table row (or one per VALUES row), its
 * columns moved into the table's without copying when the types match.
 */
final class InsertStatement implements PreparedUpdate {
  private static final AtomicLong IDS = new AtomicLong();

  /** Commits the checked rows: the catalog's append (or create, for CREATE TABLE AS). */
  @FunctionalInterface
  interface Commit {
    Version commit(ArrowReader rows, byte[] sha256);
  }

  private final TableName target;
  private final TableLocation location;
  private final Schema tableSchema;
  private final List<String> columns;
  private final PreparedQuery source;
  private final int valuesRows;
  private final ValuesLayout layout;
  private final ValuesExpressions expressions;
  private final PreparedQuery constants;
  private final Schema parameterSchema;
  private final WritableSqlCatalog catalog;
  private final SqlEngine engine;

  private InsertStatement(TableName target, TableLocation location, Schema tableSchema,
      List<String> columns, PreparedQuery source, ValuesLayout layout, ValuesExpressions expressions,
      PreparedQuery constants, Schema parameterSchema, WritableSqlCatalog catalog, SqlEngine engine) {
    this.target = target;
    this.location = location;
    this.tableSchema = tableSchema;
    this.columns = columns;
    this.source = source;
    this.valuesRows = layout == null ? 0 : layout.rows();
    this.layout = layout;
    this.expressions = expressions;
    this.constants = constants;
    this.parameterSchema = parameterSchema;
    this.catalog = catalog;
    this.engine = engine;
  }

  static InsertStatement prepare(SqlInsert insert, WritableSqlCatalog catalog, SqlEngine engine) {
    if (!(insert.getTargetTable() instanceof SqlIdentifier id)) {
      throw new SqlException(SqlException.Kind.UNSUPPORTED, "INSERT into anything but a table"
          + " name is not supported", DdlTypes.line(insert), DdlTypes.col(insert), null);
    }
    TableName target = Updates.existing(catalog, id.names, false);
    catalog.checkWritable(target);
    TableHandle handle = catalog.openTable(target).orElseThrow(() -> new SqlException(
        SqlException.Kind.TABLE_NOT_FOUND, "table " + SqlCatalog.LAKE + "." + target
            + " does not exist"));
    Schema tableSchema = handle.latestSnapshot().schema();
    int parameters = countParameters(insert.getSource());
    ValuesLayout layout = parameters > 0 ? ValuesLayout.of(insert.getSource()) : null;
    // A ? inside an expression: the VALUES rows are evaluated over each bound batch.
    boolean expressions = parameters > 0 && layout == null;
    if (expressions && insert.getSource().getKind() != SqlKind.VALUES) {
      throw new SqlException(SqlException.Kind.UNSUPPORTED, "parameters in an INSERT are"
          + " supported in a VALUES list (VALUES (?, upper(?), ? + 1)), not in a query",
          DdlTypes.line(insert.getSource()), DdlTypes.col(insert.getSource()), null);
    }
    RelPlanner.PlannedInsert planned = new RelPlanner(catalog, Map.of()).planInsert(insert,
        tableSchema.getFields().stream().map(Field::getName).toList(), layout != null);
    List<String> columns = planned.columns();
    if (expressions) {
      List<SqlType> types = parameterTypes(planned.parameterTypes());
      ValuesExpressions values = ValuesExpressions.of(planned.source().rel(), types);
      return new InsertStatement(target, handle.location(), tableSchema, columns, null, null,
          values, null, Parameters.schema(types), catalog, engine);
    }
    PreparedQuery source = planned.source() == null ? null : engine.translate(planned.source());
    List<Field> parameterFields = new ArrayList<>();
    PreparedQuery constants = null;
    if (layout != null && layout.hasConstants()) {
      constants = engine.prepare(layout.constantsQuery(), Map.of());
    }
    for (int p = 0; p < parameters; p++) {
      Field column = tableSchema.findField(columns.get(layout.columnOf(p)));
      // The column's metadata stays: a FILE column's marker tells clients what to bind.
      parameterFields.add(new Field(column.getName(),
          new FieldType(true, column.getType(), null, column.getMetadata()), column.getChildren()));
    }
    return new InsertStatement(target, handle.location(), tableSchema, columns, source,
        layout, null, constants, new Schema(parameterFields), catalog, engine);
  }

  // The validated type of each parameter, as lake binds it.
  private static List<SqlType> parameterTypes(List<RelDataTypeField> validated) {
    List<SqlType> types = new ArrayList<>();
    for (RelDataTypeField field : validated) {
      try {
        types.add(RelTypes.toLake(field.getType()).withNullable(true));
      } catch (SqlException e) {
        throw new SqlException(SqlException.Kind.INVALID, "parameter " + (types.size() + 1)
            + " would be of type " + field.getType().getFullTypeString() + ", which cannot be"
            + " bound; cast it (CAST(? AS INTEGER))");
      }
    }
    return types;
  }

  @Override
  public Schema parameterSchema() {
    return parameterSchema;
  }

  @Override
  public UpdateResult execute(BufferAllocator allocator) {
    if (source == null) {
      throw new SqlException(SqlException.Kind.INVALID, "the statement has "
          + parameterSchema.getFields().size() + " parameters (?): bind values to execute it");
    }
    return run(source, target, tableSchema, columns, allocator, engine,
        (rows, sha256) -> catalog.append(target, location, rows, sha256), () -> { });
  }

  @Override
  public UpdateResult execute(BufferAllocator allocator, ArrowReader parameters) {
    if (source != null) {
      return Updates.executeWithoutParameters(this, allocator, parameters);
    }
    int width = columns.size();
    try (BufferAllocator rowsAllocator = engine.updateAllocator(allocator, "sql-insert-" + IDS.incrementAndGet());
        InsertRows rows = new InsertRows(target, tableSchema, columns, "parameters", rowsAllocator)) {
      VectorSchemaRoot bound = parameters.getVectorSchemaRoot();
      int given = bound.getSchema().getFields().size();
      if (given != parameterSchema.getFields().size()) {
        throw new SqlException(SqlException.Kind.INVALID, "the statement has "
            + parameterSchema.getFields().size() + " parameters but " + given + " were bound");
      }
      if (expressions != null) {
        while (parameters.loadNextBatch()) {
          try (RecordBatchReader converted = converted(bound, rowsAllocator)) {
            while (converted.loadNextBatch()) {
              expressions.evaluate(converted.getVectorSchemaRoot(), rowsAllocator, rows::add);
            }
          }
        }
        return commit(rows, (reader, sha256) -> catalog.append(target, location, reader, sha256), () -> { });
      }
      List<FieldVector> constantValues = constants == null ? List.of() : constants(rowsAllocator);
      try {
        while (parameters.loadNextBatch()) {
          int n = bound.getRowCount();
          for (int r = 0; r < valuesRows; r++) {
            List<FieldVector> slice = new ArrayList<>();
            List<FieldVector> repeated = new ArrayList<>();
            for (int i = 0; i < width; i++) {
              int p = layout.slot(r, i);
              if (p >= 0) {
                slice.add(bound.getVector(p));
              } else {
                FieldVector copies = repeat(constantValues.get(layout.constantAt(r, i)), 0, n,
                    rowsAllocator);
                repeated.add(copies);
                slice.add(copies);
              }
            }
            List<Field> fields = slice.stream().map(FieldVector::getField).toList();
            try {
              rows.add(new VectorSchemaRoot(fields, slice, n));
            } finally {
              repeated.forEach(FieldVector::close);
            }
          }
        }
      } finally {
        constantValues.forEach(FieldVector::close);
      }
      return commit(rows, (reader, sha256) -> catalog.append(target, location, reader, sha256), () -> { });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The bound batch converted to the parameters' validated types (its buffers moved when they match). */
  private RecordBatchReader converted(VectorSchemaRoot bound, BufferAllocator allocator) {
    List<String> names = parameterSchema.getFields().stream().map(Field::getName).toList();
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      fields.add(new Field(names.get(i), bound.getVector(i).getField().getFieldType(),
          bound.getVector(i).getField().getChildren()));
    }
    VectorSchemaRoot renamed = new VectorSchemaRoot(fields, bound.getFieldVectors(), bound.getRowCount());
    try (InsertRows values = new InsertRows(target, parameterSchema, names, "parameters", allocator)) {
      values.add(renamed);
      return values.reader();
    }
  }

  /** The constants of the VALUES rows: one vector each, of one value (see {@link ValuesLayout#constantsQuery}). */
  private List<FieldVector> constants(BufferAllocator allocator) throws IOException {
    List<FieldVector> out = new ArrayList<>();
    try (ArrowReader reader = constants.execute(allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      for (FieldVector v : root.getFieldVectors()) {
        out.add(v.getField().createVector(allocator));
      }
      int at = 0;
      while (reader.loadNextBatch()) {
        for (int c = 0; c < out.size(); c++) {
          for (int i = 0; i < root.getRowCount(); i++) {
            out.get(c).copyFromSafe(i, at + i, root.getVector(c));
          }
        }
        at += root.getRowCount();
      }
      for (FieldVector v : out) {
        v.setValueCount(at);
      }
      return out;
    } catch (RuntimeException | IOException e) {
      out.forEach(FieldVector::close);
      throw e;
    }
  }

  /** {@code n} copies of value {@code row} of {@code values}, in a new vector the caller closes. */
  private static FieldVector repeat(FieldVector values, int row, int n, BufferAllocator allocator) {
    FieldVector out = values.getField().createVector(allocator);
    try {
      out.setInitialCapacity(n);
      out.allocateNew();
      for (int i = 0; i < n; i++) {
        out.copyFromSafe(row, i, values);
      }
      out.setValueCount(n);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  /**
   * Runs {@code source}, converts and checks every row, then commits them all at once (or runs
   * {@code none} when there are no rows).
   *
   * @return the rows written and the version holding them
   */
  static UpdateResult run(PreparedQuery source, TableName target, Schema tableSchema, List<String> columns,
      BufferAllocator allocator, SqlEngine engine, Commit commit, Runnable none) {
    // The query stays open until the rows moved out of its batches are released: a buffer
    // imported through the Arrow C data interface (a Lance scan's) keeps its import, allocated
    // in the query's allocator, alive wherever the buffer is moved, so the rows (closed first)
    // must not outlive the query (closed after them).
    try (BufferAllocator rowsAllocator = engine.updateAllocator(allocator, "sql-insert-" + IDS.incrementAndGet());
        ArrowReader reader = source.execute(allocator);
        InsertRows rows = new InsertRows(target, tableSchema, columns, "values", rowsAllocator)) {
      while (reader.loadNextBatch()) {
        rows.add(reader.getVectorSchemaRoot());
      }
      return commit(rows, commit, none);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static UpdateResult commit(InsertRows rows, Commit commit, Runnable none) {
    if (rows.rows() == 0) {
      none.run();
      return UpdateResult.none();
    }
    byte[] sha256 = rows.sha256();
    Version version;
    try (ArrowReader reader = rows.reader()) {
      version = commit.commit(reader, sha256);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new UpdateResult(rows.rows(), java.util.Optional.of(version));
  }

  private static int countParameters(SqlNode node) {
    int[] count = {0};
    node.accept(new SqlBasicVisitor<Void>() {
      @Override
      public Void visit(SqlDynamicParam param) {
        count[0]++;
        return null;
      }
    });
    return count[0];
  }
}
