package dev.lake.flight;

import dev.lake.catalog.CatalogCache;
import dev.lake.catalog.InvalidNameException;
import dev.lake.catalog.NamespaceAlreadyExistsException;
import dev.lake.catalog.NamespaceNotEmptyException;
import dev.lake.catalog.NamespaceNotFoundException;
import dev.lake.catalog.TableAlreadyExistsException;
import dev.lake.catalog.TableEntry;
import dev.lake.catalog.TableIdent;
import dev.lake.catalog.TableNotFoundException;
import dev.lake.engine.AppendOperation;
import dev.lake.engine.SchemaMismatchException;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.UuidV7;
import dev.lake.engine.Version;
import dev.lake.flight.auth.Grants;
import dev.lake.sql.SqlCatalog;
import dev.lake.sql.SqlException;
import dev.lake.sql.TableName;
import dev.lake.sql.WritableSqlCatalog;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The SQL front end's view of the table registry: schemas are registry namespaces, and a table
 * opens as the registry's read view, so queries never see a version the registry has not made
 * visible. Names that are not valid registry identifiers simply do not exist.
 *
 * <p>Reads are served by the {@link CatalogCache} without calling the registry's authority; DDL
 * and INSERT change the registry through it (read your writes): a SQL schema is a registry
 * namespace (an empty one exists by its namespace record), a table is created with the
 * {@code log} engine unless {@code WITH (engine = ...)} names another, and an INSERT is one
 * append (one version). The registry's refusals become {@link SqlException}s of the kind the
 * SQL engine decides by.
 *
 * <p>Every table opened and every change is checked against the grants of the call's principal
 * ({@link Grants}): names stay resolvable (so a refusal names the table instead of pretending it
 * is missing), opening or changing a table outside the grants is refused.
 */
public final class CatalogSqlCatalog implements WritableSqlCatalog {

  private final CatalogCache catalog;
  private final java.util.Map<String, SqlCatalog> federated;

  public CatalogSqlCatalog(CatalogCache catalog) {
    this(catalog, java.util.Map.of());
  }

  /**
   * Over the registry, with read-only catalogs beside {@value SqlCatalog#LAKE} (for example
   * {@code iceberg}) by name; writes and DDL naming them are refused.
   */
  public CatalogSqlCatalog(CatalogCache catalog, java.util.Map<String, SqlCatalog> federated) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.federated = java.util.Map.copyOf(federated);
    if (this.federated.containsKey(SqlCatalog.LAKE)) {
      throw new IllegalArgumentException("a federated catalog cannot be named " + SqlCatalog.LAKE);
    }
  }

  @Override
  public java.util.Map<String, SqlCatalog> federated() {
    return federated;
  }

  @Override
  public List<String> schemaNames() {
    return catalog.namespaces();
  }

  @Override
  public List<String> tableNames(String schema) {
    try {
      return catalog.tables(schema).stream().map(TableEntry::ident).map(TableIdent::name).toList();
    } catch (InvalidNameException e) {
      return List.of();
    }
  }

  /**
   * The registry's read view of the table; owned by the catalog, not to be closed.
   *
   * @throws dev.lake.catalog.CatalogException if the table is registered but its files cannot be
   *     opened
   */
  @Override
  public Optional<TableHandle> openTable(TableName name) {
    TableIdent ident;
    try {
      ident = TableIdent.of(name.schema(), name.table());
    } catch (InvalidNameException e) {
      return Optional.empty();
    }
    Grants.checkRead(name.schema(), name.table());
    return catalog.readHandle(ident);
  }

  /** The cache's directory generation, which moves on every create, replace and drop it sees. */
  @Override
  public OptionalLong directoryGeneration() {
    return OptionalLong.of(catalog.directoryGeneration());
  }

  @Override
  public boolean schemaExists(String schema) {
    try {
      return catalog.namespaceExists(schema);
    } catch (InvalidNameException e) {
      return false;
    }
  }

  @Override
  public void checkWritable(TableName name) {
    Grants.checkWrite(name.schema(), name.table());
  }

  @Override
  public void createSchema(String schema) {
    Grants.checkAdmin(schema);
    refusals(() -> {
      catalog.createNamespace(schema);
      return null;
    });
  }

  @Override
  public void dropSchema(String schema, boolean cascade) {
    Grants.checkAdmin(schema);
    refusals(() -> {
      catalog.dropNamespace(schema, cascade);
      return null;
    });
  }

  @Override
  public void createTable(TableName name, Schema schema, String engine) {
    Grants.checkWrite(name.schema(), name.table());
    refusals(() -> {
      TableIdent ident = ident(name);
      requireSchema(name);
      catalog.create(ident, schema, engine == null ? Ingestor.DEFAULT_ENGINE : engine);
      return null;
    });
  }

  @Override
  public Version createTableAs(TableName name, Schema schema, String engine, ArrowReader batches,
      byte[] sha256) {
    Grants.checkWrite(name.schema(), name.table());
    return refusals(() -> {
      TableIdent ident = ident(name);
      requireSchema(name);
      return catalog.createWith(ident, schema, engine == null ? Ingestor.DEFAULT_ENGINE : engine,
          operation(ident, sha256), batches).version();
    });
  }

  @Override
  public void dropTable(TableName name) {
    Grants.checkWrite(name.schema(), name.table());
    refusals(() -> {
      catalog.drop(ident(name));
      return null;
    });
  }

  @Override
  public Version append(TableName name, TableLocation location, ArrowReader batches,
      byte[] sha256) {
    Grants.checkWrite(name.schema(), name.table());
    return refusals(() -> {
      TableIdent ident = ident(name);
      // The statement was planned against the incarnation whose files are at that location.
      UUID incarnation = catalog.incarnationAt(ident, location)
          .orElseThrow(() -> new TableNotFoundException(ident));
      return catalog.append(ident, Optional.of(incarnation), operation(ident, sha256), batches)
          .version();
    });
  }

  private void requireSchema(TableName name) {
    if (!catalog.namespaceExists(name.schema())) {
      throw new NamespaceNotFoundException(name.schema());
    }
  }

  private static AppendOperation operation(TableIdent ident, byte[] sha256) {
    return AppendOperation.of(Ingestor.TENANT, "lake." + ident, UuidV7.generate(), sha256);
  }

  private static TableIdent ident(TableName name) {
    return TableIdent.of(name.schema(), name.table());
  }

  /** The registry's refusals as the SQL engine's kinds; failures pass through unchanged. */
  private static <T> T refusals(Supplier<T> change) {
    try {
      return change.get();
    } catch (NamespaceNotFoundException | TableNotFoundException e) {
      throw new SqlException(SqlException.Kind.TABLE_NOT_FOUND, e.getMessage(), 0, 0, e);
    } catch (NamespaceAlreadyExistsException | TableAlreadyExistsException e) {
      throw new SqlException(SqlException.Kind.ALREADY_EXISTS, e.getMessage(), 0, 0, e);
    } catch (NamespaceNotEmptyException e) {
      throw new SqlException(SqlException.Kind.NOT_EMPTY, e.getMessage(), 0, 0, e);
    } catch (InvalidNameException e) {
      throw new SqlException(SqlException.Kind.INVALID, e.getMessage(), 0, 0, e);
    } catch (SchemaMismatchException e) {
      throw new SqlException(SqlException.Kind.INVALID, "the rows do not match the table's"
          + " schema", 0, 0, e);
    } catch (IllegalArgumentException e) {
      // An engine refuses a schema it cannot store before writing anything, naming the column.
      throw new SqlException(SqlException.Kind.INVALID, "cannot create the table: "
          + e.getMessage(), 0, 0, e);
    }
  }
}
