package dev.lake.flight;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lake.catalog.CatalogCache;
import dev.lake.flight.auth.Grants;
import dev.lake.catalog.TableEntry;
import dev.lake.sql.SqlCatalog;
import dev.lake.sql.TableName;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import com.google.protobuf.Message;
import io.vertx.grpc.common.GrpcStatus;
import java.util.Map;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.sql.FlightSqlProducer;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Answers the Flight SQL catalog commands (GetCatalogs, GetDbSchemas, GetTables, GetTableTypes,
 * GetSqlInfo, GetXdbcTypeInfo, and the key commands) from the registry, as complete, small result
 * streams. The one catalog is {@value SqlCatalog#LAKE}; its schemas are registry namespaces and
 * every table has type {@code TABLE}. lake tables have no primary or foreign keys, so
 * GetPrimaryKeys, GetExportedKeys, GetImportedKeys and GetCrossReference answer no rows (with
 * exactly the schemas Flight SQL defines). A command whose bytes do not parse as its type is
 * {@code INVALID_ARGUMENT} naming the command.
 */
final class MetadataCommands {

  static final String TABLE_TYPE = "TABLE";

  private static final Map<Class<? extends Message>, Schema> FIXED_SCHEMAS = Map.of(
      FlightSql.CommandGetCatalogs.class, FlightSqlProducer.Schemas.GET_CATALOGS_SCHEMA,
      FlightSql.CommandGetDbSchemas.class, FlightSqlProducer.Schemas.GET_SCHEMAS_SCHEMA,
      FlightSql.CommandGetTableTypes.class, FlightSqlProducer.Schemas.GET_TABLE_TYPES_SCHEMA,
      FlightSql.CommandGetSqlInfo.class, FlightSqlProducer.Schemas.GET_SQL_INFO_SCHEMA,
      FlightSql.CommandGetXdbcTypeInfo.class, FlightSqlProducer.Schemas.GET_TYPE_INFO_SCHEMA,
      FlightSql.CommandGetPrimaryKeys.class, FlightSqlProducer.Schemas.GET_PRIMARY_KEYS_SCHEMA,
      FlightSql.CommandGetExportedKeys.class, FlightSqlProducer.Schemas.GET_EXPORTED_KEYS_SCHEMA,
      FlightSql.CommandGetImportedKeys.class, FlightSqlProducer.Schemas.GET_IMPORTED_KEYS_SCHEMA,
      FlightSql.CommandGetCrossReference.class,
      FlightSqlProducer.Schemas.GET_CROSS_REFERENCE_SCHEMA);

  private final CatalogCache catalog;
  private final Map<String, SqlCatalog> federated;
  private final SqlInfos sqlInfo;

  MetadataCommands(CatalogCache catalog, SqlInfos sqlInfo) {
    this(catalog, Map.of(), sqlInfo);
  }

  /** Also listing the read-only catalogs {@code federated} (their namespaces and tables). */
  MetadataCommands(CatalogCache catalog, Map<String, SqlCatalog> federated, SqlInfos sqlInfo) {
    this.catalog = catalog;
    this.federated = new java.util.TreeMap<>(federated);
    this.sqlInfo = sqlInfo;
  }

  /** The registry answered from. */
  CatalogCache catalog() {
    return catalog;
  }

  /** Whether {@code command} is one of the commands this class answers. */
  static boolean handles(Any command) {
    return command.is(FlightSql.CommandGetTables.class)
        || FIXED_SCHEMAS.keySet().stream().anyMatch(command::is);
  }

  /**
   * The result schema of a command {@link #handles} accepts.
   *
   * @throws io.vertx.grpc.server.StatusException INVALID_ARGUMENT if its bytes do not parse
   */
  static Schema schema(Any command) {
    if (command.is(FlightSql.CommandGetTables.class)) {
      return unpack(command, FlightSql.CommandGetTables.class).getIncludeSchema()
          ? FlightSqlProducer.Schemas.GET_TABLES_SCHEMA
          : FlightSqlProducer.Schemas.GET_TABLES_SCHEMA_NO_SCHEMA;
    }
    for (Map.Entry<Class<? extends Message>, Schema> fixed : FIXED_SCHEMAS.entrySet()) {
      if (command.is(fixed.getKey())) {
        unpack(command, fixed.getKey());
        return fixed.getValue();
      }
    }
    throw new IllegalArgumentException("not a metadata command: " + command.getTypeUrl());
  }

  /**
   * The whole result of {@code command}: the schema message, then its batches. Runs on a worker
   * thread (it reads the registry).
   *
   * @throws io.vertx.grpc.server.StatusException INVALID_ARGUMENT if the command does not parse
   *     or a filter pattern is too long; NOT_FOUND for a GetSqlInfo id lake has no value for
   */
  List<Flight.FlightData> answer(Any command, BufferAllocator allocator) {
    if (command.is(FlightSql.CommandGetCatalogs.class)) {
      unpack(command, FlightSql.CommandGetCatalogs.class);
      return single(FlightSqlProducer.Schemas.GET_CATALOGS_SCHEMA, allocator, root -> {
        VarCharVector names = (VarCharVector) root.getVector(0);
        names.setSafe(0, utf8(SqlCatalog.LAKE));
        int row = 1;
        for (String name : federated.keySet()) {
          if (Grants.catalogVisible(name)) {
            names.setSafe(row++, utf8(name));
          }
        }
        root.setRowCount(row);
      });
    } else if (command.is(FlightSql.CommandGetDbSchemas.class)) {
      return dbSchemas(unpack(command, FlightSql.CommandGetDbSchemas.class), allocator);
    } else if (command.is(FlightSql.CommandGetTables.class)) {
      return tables(unpack(command, FlightSql.CommandGetTables.class), allocator);
    } else if (command.is(FlightSql.CommandGetTableTypes.class)) {
      unpack(command, FlightSql.CommandGetTableTypes.class);
      return single(FlightSqlProducer.Schemas.GET_TABLE_TYPES_SCHEMA, allocator, root -> {
        ((VarCharVector) root.getVector(0)).setSafe(0, utf8(TABLE_TYPE));
        root.setRowCount(1);
      });
    } else if (command.is(FlightSql.CommandGetSqlInfo.class)) {
      return sqlInfo.answer(unpack(command, FlightSql.CommandGetSqlInfo.class).getInfoList());
    } else if (command.is(FlightSql.CommandGetXdbcTypeInfo.class)) {
      FlightSql.CommandGetXdbcTypeInfo request =
          unpack(command, FlightSql.CommandGetXdbcTypeInfo.class);
      Integer dataType = request.hasDataType() ? request.getDataType() : null;
      return single(FlightSqlProducer.Schemas.GET_TYPE_INFO_SCHEMA, allocator,
          root -> XdbcTypes.fill(root, dataType));
    }
    for (Map.Entry<Class<? extends Message>, Schema> fixed : FIXED_SCHEMAS.entrySet()) {
      if (command.is(fixed.getKey())) {
        // The key commands: lake tables have no keys.
        unpack(command, fixed.getKey());
        return single(fixed.getValue(), allocator, root -> root.setRowCount(0));
      }
    }
    throw new IllegalArgumentException("not a metadata command: " + command.getTypeUrl());
  }

  private static <T extends Message> T unpack(Any command, Class<T> type) {
    try {
      return command.unpack(type);
    } catch (InvalidProtocolBufferException e) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
          "the " + type.getSimpleName() + " command cannot be parsed");
    }
  }
  private List<Flight.FlightData> dbSchemas(FlightSql.CommandGetDbSchemas request,
      BufferAllocator allocator) {
    List<TableName> schemas = new ArrayList<>(); // table unused: catalog and schema
    Optional<String> catalogName = request.hasCatalog() ? Optional.of(request.getCatalog()) : Optional.empty();
    LikePattern pattern = LikePattern.of(
        request.hasDbSchemaFilterPattern() ? request.getDbSchemaFilterPattern() : null,
        "db_schema_filter_pattern");
    if (inLake(catalogName)) {
      catalog.namespaces().stream().filter(Grants::visible).filter(pattern::matches)
          .forEach(ns -> schemas.add(new TableName(ns, "")));
    }
    federated.forEach((name, other) -> {
      if (catalogName.map(name::equals).orElse(true) && Grants.catalogVisible(name)) {
        other.schemaNames().stream().filter(ns -> Grants.visible(name, ns)).filter(pattern::matches)
            .forEach(ns -> schemas.add(new TableName(name, ns, "")));
      }
    });
    return single(FlightSqlProducer.Schemas.GET_SCHEMAS_SCHEMA, allocator, root -> {
      VarCharVector catalogs = (VarCharVector) root.getVector("catalog_name");
      VarCharVector names = (VarCharVector) root.getVector("db_schema_name");
      for (int i = 0; i < schemas.size(); i++) {
        catalogs.setSafe(i, utf8(schemas.get(i).catalog()));
        names.setSafe(i, utf8(schemas.get(i).schema()));
      }
      root.setRowCount(schemas.size());
    });
  }

  private List<Flight.FlightData> tables(FlightSql.CommandGetTables request,
      BufferAllocator allocator) {
    List<Map.Entry<TableName, java.util.function.Supplier<Schema>>> tables = new ArrayList<>();
    Optional<String> catalogName = request.hasCatalog() ? Optional.of(request.getCatalog()) : Optional.empty();
    boolean wantsTables = request.getTableTypesCount() == 0
        || request.getTableTypesList().stream().anyMatch(TABLE_TYPE::equalsIgnoreCase);
    LikePattern schemaPattern = LikePattern.of(
        request.hasDbSchemaFilterPattern() ? request.getDbSchemaFilterPattern() : null,
        "db_schema_filter_pattern");
    LikePattern tablePattern = LikePattern.of(
        request.hasTableNameFilterPattern() ? request.getTableNameFilterPattern() : null,
        "table_name_filter_pattern");
    if (wantsTables && inLake(catalogName)) {
      for (String namespace : catalog.namespaces()) {
        if (Grants.visible(namespace) && schemaPattern.matches(namespace)) {
          catalog.tables(namespace).stream()
              .filter(entry -> tablePattern.matches(entry.ident().name()))
              .forEach(entry -> tables.add(Map.entry(
                  new TableName(entry.ident().namespace(), entry.ident().name()), entry::schema)));
        }
      }
    }
    for (Map.Entry<String, SqlCatalog> other : federated.entrySet()) {
      if (!wantsTables || !catalogName.map(other.getKey()::equals).orElse(true)
          || !Grants.catalogVisible(other.getKey())) {
        continue;
      }
      for (String namespace : other.getValue().schemaNames()) {
        if (Grants.visible(other.getKey(), namespace) && schemaPattern.matches(namespace)) {
          for (String table : other.getValue().tableNames(namespace)) {
            if (tablePattern.matches(table)) {
              TableName name = new TableName(other.getKey(), namespace, table);
              tables.add(Map.entry(name, () -> other.getValue().openTable(name)
                  .map(handle -> handle.schema()).orElseGet(() -> new Schema(List.of()))));
            }
          }
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
        TableName name = tables.get(i).getKey();
        catalogs.setSafe(i, utf8(name.catalog()));
        schemas.setSafe(i, utf8(name.schema()));
        names.setSafe(i, utf8(name.table()));
        types.setSafe(i, utf8(TABLE_TYPE));
        if (schemaBytes != null) {
          schemaBytes.setSafe(i, FlightIpc.schemaBytes(ColumnMetadata.ofTable(
              name, tables.get(i).getValue().get())).toByteArray());
        }
      }
      root.setRowCount(tables.size());
    });
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
}
