package dev.lake.flight;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lake.catalog.Catalog;
import dev.lake.catalog.TableEntry;
import dev.lake.sql.SqlCatalog;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.sql.FlightSqlProducer;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Answers the Flight SQL catalog commands (GetCatalogs, GetDbSchemas, GetTables, GetTableTypes,
 * GetSqlInfo) from the registry, as complete, small result streams. The one catalog is
 * {@value SqlCatalog#LAKE}; its schemas are registry namespaces and every table has type
 * {@code TABLE}.
 */
final class MetadataCommands {

  static final String TABLE_TYPE = "TABLE";

  private final Catalog catalog;
  private final SqlInfoBuilder sqlInfo;

  MetadataCommands(Catalog catalog, SqlInfoBuilder sqlInfo) {
    this.catalog = catalog;
    this.sqlInfo = sqlInfo;
  }

  /** Whether {@code command} is one of the commands this class answers. */
  static boolean handles(Any command) {
    return command.is(FlightSql.CommandGetCatalogs.class)
        || command.is(FlightSql.CommandGetDbSchemas.class)
        || command.is(FlightSql.CommandGetTables.class)
        || command.is(FlightSql.CommandGetTableTypes.class)
        || command.is(FlightSql.CommandGetSqlInfo.class);
  }

  /** The result schema of a command {@link #handles} accepts. */
  static Schema schema(Any command) throws InvalidProtocolBufferException {
    if (command.is(FlightSql.CommandGetCatalogs.class)) {
      return FlightSqlProducer.Schemas.GET_CATALOGS_SCHEMA;
    } else if (command.is(FlightSql.CommandGetDbSchemas.class)) {
      return FlightSqlProducer.Schemas.GET_SCHEMAS_SCHEMA;
    } else if (command.is(FlightSql.CommandGetTables.class)) {
      return command.unpack(FlightSql.CommandGetTables.class).getIncludeSchema()
          ? FlightSqlProducer.Schemas.GET_TABLES_SCHEMA
          : FlightSqlProducer.Schemas.GET_TABLES_SCHEMA_NO_SCHEMA;
    } else if (command.is(FlightSql.CommandGetTableTypes.class)) {
      return FlightSqlProducer.Schemas.GET_TABLE_TYPES_SCHEMA;
    } else if (command.is(FlightSql.CommandGetSqlInfo.class)) {
      return FlightSqlProducer.Schemas.GET_SQL_INFO_SCHEMA;
    }
    throw new IllegalArgumentException("not a metadata command: " + command.getTypeUrl());
  }

  /**
   * The whole result of {@code command}: the schema message, then its batches. Runs on a worker
   * thread (it reads the registry).
   */
  List<Flight.FlightData> answer(Any command, BufferAllocator allocator)
      throws InvalidProtocolBufferException {
    if (command.is(FlightSql.CommandGetCatalogs.class)) {
      return single(FlightSqlProducer.Schemas.GET_CATALOGS_SCHEMA, allocator, root -> {
        VarCharVector names = (VarCharVector) root.getVector(0);
        names.setSafe(0, utf8(SqlCatalog.LAKE));
        root.setRowCount(1);
      });
    } else if (command.is(FlightSql.CommandGetDbSchemas.class)) {
      return dbSchemas(command.unpack(FlightSql.CommandGetDbSchemas.class), allocator);
    } else if (command.is(FlightSql.CommandGetTables.class)) {
      return tables(command.unpack(FlightSql.CommandGetTables.class), allocator);
    } else if (command.is(FlightSql.CommandGetTableTypes.class)) {
      return single(FlightSqlProducer.Schemas.GET_TABLE_TYPES_SCHEMA, allocator, root -> {
        ((VarCharVector) root.getVector(0)).setSafe(0, utf8(TABLE_TYPE));
        root.setRowCount(1);
      });
    } else if (command.is(FlightSql.CommandGetSqlInfo.class)) {
      return sqlInfo(command.unpack(FlightSql.CommandGetSqlInfo.class));
    }
    throw new IllegalArgumentException("not a metadata command: " + command.getTypeUrl());
  }

  private List<Flight.FlightData> dbSchemas(FlightSql.CommandGetDbSchemas request,
      BufferAllocator allocator) {
    List<String> schemas = new ArrayList<>();
    if (inLake(request.hasCatalog() ? Optional.of(request.getCatalog()) : Optional.empty())) {
      LikePattern pattern = LikePattern.of(
          request.hasDbSchemaFilterPattern() ? request.getDbSchemaFilterPattern() : null,
          "db_schema_filter_pattern");
      catalog.namespaces().stream().filter(pattern::matches).forEach(schemas::add);
    }
    return single(FlightSqlProducer.Schemas.GET_SCHEMAS_SCHEMA, allocator, root -> {
      VarCharVector catalogs = (VarCharVector) root.getVector("catalog_name");
      VarCharVector names = (VarCharVector) root.getVector("db_schema_name");
      for (int i = 0; i < schemas.size(); i++) {
        catalogs.setSafe(i, utf8(SqlCatalog.LAKE));
        names.setSafe(i, utf8(schemas.get(i)));
      }
      root.setRowCount(schemas.size());
    });
  }

  private List<Flight.FlightData> tables(FlightSql.CommandGetTables request,
      BufferAllocator allocator) {
    List<TableEntry> tables = new ArrayList<>();
    boolean wantsTables = request.getTableTypesCount() == 0
        || request.getTableTypesList().stream().anyMatch(TABLE_TYPE::equalsIgnoreCase);
    if (wantsTables
        && inLake(request.hasCatalog() ? Optional.of(request.getCatalog()) : Optional.empty())) {
      LikePattern schemaPattern = LikePattern.of(
          request.hasDbSchemaFilterPattern() ? request.getDbSchemaFilterPattern() : null,
          "db_schema_filter_pattern");
      LikePattern tablePattern = LikePattern.of(
          request.hasTableNameFilterPattern() ? request.getTableNameFilterPattern() : null,
          "table_name_filter_pattern");
      for (String namespace : catalog.namespaces()) {
        if (schemaPattern.matches(namespace)) {
          catalog.tables(namespace).stream()
              .filter(entry -> tablePattern.matches(entry.ident().name()))
              .forEach(tables::add);
        }
      }
    }
    boolean includeSchema = request.getIncludeSchema();
    Schema schema = includeSchema
        ? FlightSqlProducer.Schemas.GET_TABLES_SCHEMA
        : FlightSqlProducer.Schemas.GET_TABLES_SCHEMA_NO_SCHEMA;
    return single(schema, allocator, root -> {
      VarCharVector catalogs = (VarCharVector) root.getVector("catalog_name");
      VarCharVector schemas = (VarCharVector) root.getVector("db_schema_name");
      VarCharVector names = (VarCharVector) root.getVector("table_name");
      VarCharVector types = (VarCharVector) root.getVector("table_type");
      VarBinaryVector schemaBytes =
          includeSchema ? (VarBinaryVector) root.getVector("table_schema") : null;
      for (int i = 0; i < tables.size(); i++) {
        TableEntry entry = tables.get(i);
        catalogs.setSafe(i, utf8(SqlCatalog.LAKE));
        schemas.setSafe(i, utf8(entry.ident().namespace()));
        names.setSafe(i, utf8(entry.ident().name()));
        types.setSafe(i, utf8(TABLE_TYPE));
        if (schemaBytes != null) {
          schemaBytes.setSafe(i, FlightIpc.schemaBytes(entry.schema()).toByteArray());
        }
      }
      root.setRowCount(tables.size());
    });
  }

  private List<Flight.FlightData> sqlInfo(FlightSql.CommandGetSqlInfo request) {
    CapturingListener listener = new CapturingListener();
    sqlInfo.send(request.getInfoList(), listener);
    if (listener.error != null) {
      throw new IllegalStateException("GetSqlInfo failed", listener.error);
    }
    return listener.messages;
  }

  // A catalog filter is an exact name (not a pattern); the empty string means "no catalog",
  // which lake's tables never have.
  private static boolean inLake(Optional<String> catalogName) {
    return catalogName.map(SqlCatalog.LAKE::equals).orElse(true);
  }

  private static List<Flight.FlightData> single(Schema schema, BufferAllocator allocator,
      Consumer<VectorSchemaRoot> fill) {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      fill.accept(root);
      return List.of(FlightIpc.schemaMessage(schema), FlightIpc.batchMessage(root));
    }
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Receives what {@link SqlInfoBuilder#send} would stream and keeps it as encoded messages;
   * the builder closes its own vectors right after, so each batch is copied out at putNext.
   */
  private static final class CapturingListener implements FlightProducer.ServerStreamListener {
    final List<Flight.FlightData> messages = new ArrayList<>();
    VectorSchemaRoot root;
    Throwable error;

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public void setOnCancelHandler(Runnable handler) {}

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void start(VectorSchemaRoot root, DictionaryProvider dictionaries, IpcOption option) {
      this.root = root;
      messages.add(FlightIpc.schemaMessage(root.getSchema()));
    }

    @Override
    public void putNext() {
      messages.add(FlightIpc.batchMessage(root));
    }

    @Override
    public void putNext(ArrowBuf metadata) {
      putNext();
    }

    @Override
    public void putMetadata(ArrowBuf metadata) {}

    @Override
    public void error(Throwable ex) {
      error = ex;
    }

    @Override
    public void completed() {}
  }
}
