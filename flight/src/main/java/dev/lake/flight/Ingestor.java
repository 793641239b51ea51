package dev.lake.flight;

import dev.lake.catalog.CatalogCache;
import dev.lake.catalog.TableAlreadyExistsException;
import dev.lake.catalog.TableEntry;
import dev.lake.catalog.TableIdent;
import dev.lake.catalog.TableNotFoundException;
import dev.lake.engine.AppendOperation;
import dev.lake.sql.SqlCatalog;
import io.vertx.grpc.common.GrpcStatus;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The table semantics of {@code CommandStatementIngest}: which table, and whether to create,
 * append to or replace it. Unspecified table-definition options mean FAIL (never create or
 * overwrite by accident). The engine of a created table is the {@code engine} entry of the
 * command's options, else {@value #DEFAULT_ENGINE}.
 */
final class Ingestor {

  static final String DEFAULT_ENGINE = "log";
  static final String ENGINE_OPTION = "engine";
  /**
   * The ingest option naming the append's operation id (a UUID the client generates once): an
   * ingest repeated with the same id and the same payload by the same tenant returns the version
   * it first committed instead of appending again; with another payload it is refused.
   */
  static final String OPERATION_ID_OPTION = "lake.operation_id";
  /** The response header carrying the table version an ingest committed (absent: none). */
  static final String VERSION_HEADER = "lake-table-version";
  /** The response header echoing the operation id of that version. */
  static final String OPERATION_HEADER = "lake-operation-id";
  /** The tenant of calls on a server that authenticates nobody. */
  static final String TENANT = "default";

  private final CatalogCache catalog;

  Ingestor(CatalogCache catalog) {
    this.catalog = catalog;
  }

  /**
   * Checks the command before any data is accepted.
   *
   * @return the target table
   * @throws io.vertx.grpc.server.StatusException INVALID_ARGUMENT for a foreign catalog, a
   *     missing schema, a temporary table or a transaction
   * @throws dev.lake.catalog.InvalidNameException if schema or table is not a valid identifier
   */
  static TableIdent target(CommandStatementIngest command) {
    return target(command, null);
  }

  /**
   * As {@link #target(CommandStatementIngest)}; a command without a schema ingests into the
   * session's {@code defaultSchema} (null: none, then the schema is required).
   */
  static TableIdent target(CommandStatementIngest command, String defaultSchema) {
    if (command.hasCatalog() && !command.getCatalog().isEmpty()
        && !SqlCatalog.LAKE.equals(command.getCatalog())) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "cannot ingest into catalog '"
          + command.getCatalog() + "': the only writable catalog is '" + SqlCatalog.LAKE + "'");
    }
    boolean noSchema = !command.hasSchema() || command.getSchema().isEmpty();
    if (noSchema && defaultSchema == null) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
          "ingest needs a schema (namespace) for table '" + command.getTable() + "'");
    }
    if (command.getTemporary()) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
          "temporary tables are not supported");
    }
    if (command.hasTransactionId()) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
          "transactions are not supported; ingest without a transaction id");
    }
    return TableIdent.of(noSchema ? defaultSchema : command.getSchema(), command.getTable());
  }

  /**
   * The operation id the client chose ({@value #OPERATION_ID_OPTION}), or empty for one the
   * server generates.
   *
   * @throws io.vertx.grpc.server.StatusException INVALID_ARGUMENT if the option is not a UUID
   */
  static Optional<java.util.UUID> operationId(CommandStatementIngest command) {
    String value = command.getOptionsMap().get(OPERATION_ID_OPTION);
    if (value == null) {
      return Optional.empty();
    }
    try {
      java.util.UUID id = java.util.UUID.fromString(value.trim());
      if (!id.toString().equalsIgnoreCase(value.trim())) {
        throw new IllegalArgumentException(value);
      }
      return Optional.of(id);
    } catch (IllegalArgumentException e) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "ingest option "
          + OPERATION_ID_OPTION + " must be a UUID (8-4-4-4-12 hex digits), got '" + value + "'");
    }
  }

  /**
   * Writes the payload to {@code ident} as the command's options say. On any exception nothing
   * is changed: no new version of an existing table is visible, and a table this call created is
   * dropped again if the append into it fails.
   *
   * <p>A payload without rows ({@code data} null: the stream carried a schema and no batches, or
   * only empty ones) adds no version, since a version holds at least one row: a missing table
   * with if_not_exist CREATE is created empty (the command's schema is all CREATE needs, as the
   * Flight SQL spec defines the mode), an existing one with APPEND is left as it is (after its
   * columns are checked), and REPLACE of an existing table replaces it with an empty table of
   * the command's schema (the spec's "drop and recreate": a new incarnation at version 0).
   *
   * @param data the payload, or null when it has no rows; called once, the reader is consumed by
   *     the catalog
   * @return the table at the version this call committed (or first committed, for a repeated
   *     operation), or empty when it committed none
   * @throws TableNotFoundException if the table is missing and the options do not say CREATE
   * @throws TableAlreadyExistsException if the table exists and the options do not say APPEND
   *     or REPLACE
   * @throws io.vertx.grpc.server.StatusException INVALID_ARGUMENT naming the first column that
   *     differs from the table's, on append; INVALID_ARGUMENT naming the column when the engine
   *     cannot store one of the payload's types, on create or replace (nothing is created)
   */
  Optional<TableEntry> ingest(CommandStatementIngest command, TableIdent ident, Schema schema,
      AppendOperation operation, Supplier<ArrowReader> data) {
    TableDefinitionOptions options = command.getTableDefinitionOptions();
    Optional<TableEntry> existing = catalog.lookup(ident);
    if (existing.isEmpty()) {
      if (options.getIfNotExist() != TableDefinitionOptions.TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE) {
        throw new TableNotFoundException(ident);
      }
      String engine = command.getOptionsMap().getOrDefault(ENGINE_OPTION, DEFAULT_ENGINE);
      try {
        TableEntry created = createChecked(ident, () -> catalog.create(ident, schema, engine));
        return data == null ? Optional.empty()
            : Optional.of(appendToCreated(ident, created, operation, data));
      } catch (TableAlreadyExistsException raced) {
        // Another writer created it between lookup and create: treat it as existing.
        existing = catalog.lookup(ident);
        if (existing.isEmpty()) {
          throw raced;
        }
      }
    }
    switch (options.getIfExists()) {
      case TABLE_EXISTS_OPTION_APPEND -> {
        checkSameColumns(ident, existing.get().schema(), schema);
        return data == null ? Optional.empty() : Optional.of(
            catalog.append(ident, Optional.of(existing.get().incarnation()), operation, data.get()));
      }
      case TABLE_EXISTS_OPTION_REPLACE -> {
        if (data == null) {
          createChecked(ident, () -> catalog.replaceWithEmpty(ident, schema));
          return Optional.empty();
        }
        return Optional.of(
            createChecked(ident, () -> catalog.replace(ident, schema, operation, data.get())));
      }
      default -> throw new TableAlreadyExistsException(ident);
    }
  }

  // A failed append into the table this call just created leaves no empty table behind. The drop
  // is skipped if the entry changed meanwhile (another writer appended or replaced it).
  private TableEntry appendToCreated(TableIdent ident, TableEntry created,
      AppendOperation operation, Supplier<ArrowReader> data) {
    try {
      return catalog.append(ident, Optional.of(created.incarnation()), operation, data.get());
    } catch (RuntimeException e) {
      try {
        Optional<TableEntry> now = catalog.lookup(ident);
        if (now.isPresent() && now.get().incarnation().equals(created.incarnation())
            && now.get().version().equals(created.version())) {
          catalog.drop(ident);
        }
      } catch (RuntimeException dropFailed) {
        e.addSuppressed(dropFailed);
      }
      throw e;
    }
  }

  /**
   * Runs a create or replace, turning the engine's refusal of the schema (a type its format
   * cannot store, such as a map, union or dictionary column; duplicate names), which it reports
   * before writing anything, into INVALID_ARGUMENT with its message naming the column.
   */
  private static <T> T createChecked(TableIdent ident, Supplier<T> create) {
    try {
      return create.get();
    } catch (IllegalArgumentException e) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT,
          "cannot create table lake." + ident + ": " + e.getMessage());
    }
  }

  // The engine checks too, but its refusal may not name the column; this one does.
  static void checkSameColumns(TableIdent ident, Schema table, Schema data) {
    List<Field> expected = table.getFields();
    List<Field> actual = data.getFields();
    for (int i = 0; i < Math.max(expected.size(), actual.size()); i++) {
      if (i >= actual.size()) {
        throw mismatch("column '" + expected.get(i).getName() + "' of table lake." + ident
            + " is missing from the data");
      }
      if (i >= expected.size()) {
        throw mismatch("column '" + actual.get(i).getName() + "' of the data does not exist in"
            + " table lake." + ident);
      }
      Field want = expected.get(i);
      Field got = actual.get(i);
      if (!want.getName().equals(got.getName())) {
        throw mismatch("column " + (i + 1) + " is '" + got.getName() + "' in the data but '"
            + want.getName() + "' in table lake." + ident);
      }
      if (!sameType(want, got)) {
        throw mismatch("column '" + got.getName() + "' has type " + describe(got)
            + " in the data but " + describe(want) + " in table lake." + ident);
      }
    }
  }

  private static boolean sameType(Field a, Field b) {
    if (!a.getType().equals(b.getType()) || a.getChildren().size() != b.getChildren().size()) {
      return false;
    }
    for (int i = 0; i < a.getChildren().size(); i++) {
      if (!sameType(a.getChildren().get(i), b.getChildren().get(i))) {
        return false;
      }
    }
    return true;
  }

  private static String describe(Field field) {
    return field.getChildren().isEmpty()
        ? field.getType().toString()
        : field.getType() + "<" + field.getChildren() + ">";
  }

  private static RuntimeException mismatch(String message) {
    return ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, "schema mismatch: " + message);
  }
}
