package dev.lake.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.ddl.SqlCreateTable;

/**
 * Prepares update statements: lake's DDL ({@link DdlParsing}), {@code CREATE TABLE [AS]} and
 * {@code INSERT}. {@code DELETE}, {@code UPDATE} and {@code MERGE} are refused: tables are
 * append-only.
 */
final class Updates {
  private Updates() {}

  static final String ENGINE_OPTION = "engine";
  private static final Set<String> OPTIONS = Set.of(ENGINE_OPTION);

  /** Whether {@code sql} is an update statement (DDL or DML) rather than a query. */
  static boolean isUpdate(String sql) {
    return DdlParsing.isUpdate(sql);
  }

  static PreparedUpdate prepare(String sql, WritableSqlCatalog catalog, SqlEngine engine) {
    var ddl = DdlParsing.recognize(sql);
    if (ddl.isPresent()) {
      return switch (ddl.get()) {
        case DdlParsing.CreateSchema c -> ddl(() -> {
          try {
            catalog.createSchema(c.schema());
          } catch (SqlException e) {
            if (!(c.ifNotExists() && e.kind() == SqlException.Kind.ALREADY_EXISTS)) {
              throw e;
            }
          }
        });
        case DdlParsing.DropSchema d -> ddl(() -> {
          try {
            catalog.dropSchema(d.schema(), d.cascade());
          } catch (SqlException e) {
            if (!(d.ifExists() && e.kind() == SqlException.Kind.TABLE_NOT_FOUND)) {
              throw e;
            }
          }
        });
        case DdlParsing.DropTable d -> ddl(() -> {
          TableName name = existing(catalog, d.name(), d.ifExists());
          if (name == null) {
            return;
          }
          try {
            catalog.dropTable(name);
          } catch (SqlException e) {
            if (!(d.ifExists() && e.kind() == SqlException.Kind.TABLE_NOT_FOUND)) {
              throw e;
            }
          }
        });
      };
    }
    if (DdlParsing.isCreateTable(sql)) {
      return createTable(sql, catalog, engine);
    }
    SqlNode statement = SqlParsing.parse(sql);
    return switch (statement.getKind()) {
      case INSERT -> {
        SqlInsert insert = (SqlInsert) statement;
        if (insert.isUpsert()) {
          throw refusedWrite("UPSERT", statement);
        }
        yield InsertStatement.prepare(insert, catalog, engine);
      }
      case DELETE -> throw refusedWrite("DELETE", statement);
      case UPDATE -> throw refusedWrite("UPDATE", statement);
      case MERGE -> throw refusedWrite("MERGE", statement);
      default -> throw new SqlException(SqlException.Kind.UNSUPPORTED,
          statement.getKind().sql + " statements are not supported");
    };
  }

  private static SqlException refusedWrite(String what, SqlNode at) {
    return new SqlException(SqlException.Kind.UNSUPPORTED, what + " is not supported: lake"
        + " tables are append-only (INSERT adds rows; CREATE TABLE ... AS SELECT writes a new"
        + " table)", DdlTypes.line(at), DdlTypes.col(at), null);
  }

  private static PreparedUpdate createTable(String sql, WritableSqlCatalog catalog,
      SqlEngine engine) {
    DdlParsing.CreateTableText text = DdlParsing.createTable(sql);
    for (String key : text.options().keySet()) {
      if (!OPTIONS.contains(key)) {
        throw new SqlException(SqlException.Kind.INVALID, "unknown table option '" + key
            + "'; supported: " + ENGINE_OPTION);
      }
    }
    String tableEngine = text.options().get(ENGINE_OPTION);
    SqlNode node = SqlParsing.parse(text.text());
    if (!(node instanceof SqlCreateTable create)) {
      throw new SqlException(SqlException.Kind.SYNTAX, "syntax error: not a CREATE TABLE");
    }
    if (create.getReplace()) {
      throw new SqlException(SqlException.Kind.UNSUPPORTED, "CREATE OR REPLACE TABLE is not"
          + " supported; DROP TABLE first", DdlTypes.line(create), DdlTypes.col(create), null);
    }
    TableName name = newTable(create.name, catalog);
    if (create.query != null) {
      if (create.columnList != null) {
        throw new SqlException(SqlException.Kind.UNSUPPORTED, "CREATE TABLE with both a column"
            + " list and AS is not supported; alias the query's columns instead");
      }
      return new CreateTableAs(name, create.ifNotExists, tableEngine, create.query, catalog, engine);
    }
    if (create.columnList == null || create.columnList.isEmpty()) {
      throw new SqlException(SqlException.Kind.INVALID, "CREATE TABLE " + name
          + " needs at least one column");
    }
    Schema schema = DdlTypes.schema(create.columnList, text.arraySizes(), text.primaryKey());
    boolean ifNotExists = create.ifNotExists;
    return ddl(() -> {
      ensureDefaultSchema(catalog, name);
      try {
        catalog.createTable(name, schema, tableEngine);
      } catch (SqlException e) {
        if (!(ifNotExists && e.kind() == SqlException.Kind.ALREADY_EXISTS)) {
          throw e;
        }
      }
    });
  }

  /** The default schema exists as in PostgreSQL: created on its first use. */
  static void ensureDefaultSchema(WritableSqlCatalog catalog, TableName name) {
    if (name.schema().equals(WritableSqlCatalog.DEFAULT_SCHEMA)
        && !catalog.schemaExists(WritableSqlCatalog.DEFAULT_SCHEMA)) {
      try {
        catalog.createSchema(WritableSqlCatalog.DEFAULT_SCHEMA);
      } catch (SqlException e) {
        if (e.kind() != SqlException.Kind.ALREADY_EXISTS) {
          throw e;
        }
      }
    }
  }

  /**
   * The name a new table gets: {@code t} is in the catalog's default schema (a session's), else
   * in {@value WritableSqlCatalog#DEFAULT_SCHEMA}.
   */
  static TableName newTable(SqlIdentifier id, SqlCatalog catalog) {
    List<String> names = id.names;
    return switch (names.size()) {
      case 1 -> new TableName(catalog.defaultSchema().orElse(WritableSqlCatalog.DEFAULT_SCHEMA),
          names.getFirst());
      case 2 -> new TableName(names.get(0), names.get(1));
      case 3 -> {
        checkLake(catalog, names);
        yield new TableName(names.get(1), names.get(2));
      }
      default -> throw new SqlException(SqlException.Kind.INVALID, "table name " + id
          + " has more than three parts", DdlTypes.line(id), DdlTypes.col(id), null);
    };
  }

  /**
   * Refuses a change to a table of a catalog other than {@value SqlCatalog#LAKE}: a federated
   * one is read-only (INVALID, naming the table), any other does not exist for changes.
   */
  private static void checkLake(SqlCatalog catalog, List<String> names) {
    String catalogName = names.getFirst();
    if (!SqlCatalog.LAKE.equals(catalogName) && catalog.federated().containsKey(catalogName)) {
      throw new SqlException(SqlException.Kind.INVALID, "catalog " + catalogName + " is read-only:"
          + " changing " + String.join(".", names) + " is refused (INSERT, CREATE, DROP and"
          + " other writes go to catalog '" + SqlCatalog.LAKE + "' only)");
    }
    if (!SqlCatalog.LAKE.equals(catalogName)) {
      throw new SqlException(SqlException.Kind.INVALID, "catalog '" + catalogName + "' cannot"
          + " be changed: the only writable catalog is '" + SqlCatalog.LAKE + "'");
    }
  }

  /**
   * An existing table: {@code t} resolves as in queries, to the catalog's default schema when it
   * has the table, else to the one schema that has it.
   *
   * @return null if it does not exist and {@code ifExists}
   * @throws SqlException TABLE_NOT_FOUND, or INVALID when a bare name is in several schemas
   */
  static TableName existing(SqlCatalog catalog, List<String> names, boolean ifExists) {
    TableName name;
    if (names.size() == 1 && catalog.defaultSchema().isPresent()
        && catalog.openTable(new TableName(catalog.defaultSchema().get(), names.getFirst())).isPresent()) {
      name = new TableName(catalog.defaultSchema().get(), names.getFirst());
    } else if (names.size() == 1) {
      List<String> owners = new ArrayList<>();
      for (String schema : catalog.schemaNames()) {
        if (catalog.tableNames(schema).contains(names.getFirst())) {
          owners.add(schema);
        }
      }
      if (owners.size() > 1) {
        throw new SqlException(SqlException.Kind.INVALID, "table '" + names.getFirst()
            + "' is in schemas " + owners + ": qualify it");
      }
      name = new TableName(owners.isEmpty()
          ? catalog.defaultSchema().orElse(WritableSqlCatalog.DEFAULT_SCHEMA) : owners.getFirst(),
          names.getFirst());
    } else {
      if (names.size() == 3) {
        checkLake(catalog, names);
      }
      name = new TableName(names.get(names.size() - 2), names.getLast());
    }
    if (catalog.openTable(name).isEmpty()) {
      if (ifExists) {
        return null;
      }
      throw new SqlException(SqlException.Kind.TABLE_NOT_FOUND, "table " + SqlCatalog.LAKE + "."
          + name + " does not exist");
    }
    return name;
  }

  private static PreparedUpdate ddl(Runnable action) {
    return new PreparedUpdate() {
      @Override
      public Schema parameterSchema() {
        return new Schema(List.of());
      }

      @Override
      public UpdateResult execute(BufferAllocator allocator) {
        action.run();
        return UpdateResult.none();
      }

      @Override
      public UpdateResult execute(BufferAllocator allocator, ArrowReader parameters) {
        return executeWithoutParameters(this, allocator, parameters);
      }
    };
  }

  /**
   * A statement without {@code ?} bound to parameters runs once, when the binding has no
   * columns (what a client sends to execute a prepared statement without parameters).
   */
  static UpdateResult executeWithoutParameters(PreparedUpdate update, BufferAllocator allocator,
      ArrowReader parameters) {
    try {
      if (!parameters.getVectorSchemaRoot().getSchema().getFields().isEmpty()) {
        throw new SqlException(SqlException.Kind.INVALID, "the statement has no parameters but "
            + parameters.getVectorSchemaRoot().getSchema().getFields().size() + " were bound");
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return update.execute(allocator);
  }

  /** {@code CREATE TABLE t AS query}: the query's rows become version 1 of the new table. */
  private record CreateTableAs(TableName name, boolean ifNotExists, String tableEngine,
      SqlNode query, WritableSqlCatalog catalog, SqlEngine engine) implements PreparedUpdate {

    @Override
    public Schema parameterSchema() {
      return new Schema(List.of());
    }

    @Override
    public UpdateResult execute(BufferAllocator allocator) {
      if (catalog.openTable(name).isPresent()) {
        if (ifNotExists) {
          return UpdateResult.none();
        }
        throw new SqlException(SqlException.Kind.ALREADY_EXISTS, "table " + SqlCatalog.LAKE
            + "." + name + " already exists");
      }
      PreparedQuery planned = engine.planQuery(query, Map.of(), catalog);
      List<Field> fields = new ArrayList<>();
      List<String> columns = new ArrayList<>();
      for (Field f : planned.schema().getFields()) {
        if (columns.contains(f.getName())) {
          throw new SqlException(SqlException.Kind.INVALID, "the query gives two columns named '"
              + f.getName() + "': alias one of them");
        }
        columns.add(f.getName());
        fields.add(new Field(f.getName(), new FieldType(true, f.getType(), f.getDictionary(),
            f.getMetadata()), f.getChildren()));
      }
      Schema schema = new Schema(fields);
      ensureDefaultSchema(catalog, name);
      return InsertStatement.run(planned, name, schema, columns, allocator, engine,
          (reader, sha256) -> catalog.createTableAs(name, schema, tableEngine, reader, sha256),
          () -> catalog.createTable(name, schema, tableEngine));
    }

    @Override
    public UpdateResult execute(BufferAllocator allocator, ArrowReader parameters) {
      return executeWithoutParameters(this, allocator, parameters);
    }
  }
}
