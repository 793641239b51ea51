package dev.lake.flight;

import dev.lake.catalog.Catalog;
import dev.lake.catalog.InvalidNameException;
import dev.lake.catalog.TableEntry;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.TableHandle;
import dev.lake.sql.SqlCatalog;
import dev.lake.sql.TableName;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The SQL front end's view of the table registry: schemas are registry namespaces, and a table
 * opens as the registry's read view, so queries never see a version the registry has not made
 * visible. Names that are not valid registry identifiers simply do not exist.
 */
public final class CatalogSqlCatalog implements SqlCatalog {

  private final Catalog catalog;

  public CatalogSqlCatalog(Catalog catalog) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
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
    return catalog.readHandle(ident);
  }

  /** The registry's directory generation, which moves on every create, replace and drop. */
  @Override
  public OptionalLong directoryGeneration() {
    return OptionalLong.of(catalog.directoryGeneration());
  }
}
