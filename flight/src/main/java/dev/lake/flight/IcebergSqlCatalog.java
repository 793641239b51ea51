package dev.lake.flight;

import dev.lake.engine.TableHandle;
import dev.lake.flight.auth.Grants;
import dev.lake.iceberg.IcebergFederation;
import dev.lake.sql.SqlCatalog;
import dev.lake.sql.TableName;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The read-only SQL catalog {@value IcebergFederation#CATALOG} over an {@link IcebergFederation}:
 * schemas are Iceberg namespaces (nested ones as dotted names), tables open at their current
 * snapshot, and a table's versions are its snapshot ids, so a plan's pin replays exactly one
 * snapshot (with the schema it was committed with). Plug it in with {@link #federated}.
 */
public final class IcebergSqlCatalog implements SqlCatalog {
  private final IcebergFederation federation;

  private IcebergSqlCatalog(IcebergFederation federation) {
    this.federation = Objects.requireNonNull(federation, "federation");
  }

  /** {@code federation} as the catalog map {@link CatalogSqlCatalog} takes. */
  public static java.util.Map<String, SqlCatalog> federated(IcebergFederation federation) {
    return java.util.Map.of(IcebergFederation.CATALOG, new IcebergSqlCatalog(federation));
  }

  @Override
  public List<String> schemaNames() {
    return federation.namespaces();
  }

  @Override
  public boolean schemaExists(String schema) {
    return federation.namespaces().contains(schema);
  }

  @Override
  public List<String> tableNames(String schema) {
    return federation.tables(schema);
  }

  /**
   * The table at its current metadata, or empty if the namespace or table does not exist.
   *
   * @throws dev.lake.flight.auth.AccessDeniedException if the caller's grants do not cover the
   *     namespace ({@code iceberg.<namespace>} or {@code iceberg.*})
   * @throws dev.lake.engine.SourceUnavailableException if the catalog cannot be reached
   */
  @Override
  public Optional<TableHandle> openTable(TableName name) {
    Grants.checkRead(IcebergFederation.CATALOG, name.schema(), name.table());
    return federation.open(name.schema(), name.table());
  }
}
