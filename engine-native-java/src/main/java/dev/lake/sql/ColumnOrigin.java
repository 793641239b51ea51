package dev.lake.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.metadata.RelColumnOrigin;
import org.apache.calcite.rel.metadata.RelMetadataQuery;

/**
 * Where a result column comes from when it is a table's column passed through unchanged
 * ({@code SELECT id, robot AS r FROM demo.episodes}: both columns have an origin; {@code id + 1}
 * and {@code count(*)} have none): the table of catalog {@value SqlCatalog#LAKE} and the column's
 * name in it.
 */
public record ColumnOrigin(TableName table, String column) {
  public ColumnOrigin {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(column, "column");
  }

  /**
   * The origin of each output column of a logical plan, from Calcite's column-origin metadata:
   * present when the column traces back, underived, to exactly one column of a lake table.
   */
  static List<Optional<ColumnOrigin>> of(RelNode rel) {
    RelMetadataQuery metadata = rel.getCluster().getMetadataQuery();
    List<Optional<ColumnOrigin>> origins = new ArrayList<>();
    for (int i = 0; i < rel.getRowType().getFieldCount(); i++) {
      Optional<ColumnOrigin> origin = Optional.empty();
      try {
        RelColumnOrigin found = metadata.getColumnOrigin(rel, i);
        if (found != null && !found.isDerived()) {
          CalciteTables.LakeTable table =
              found.getOriginTable().unwrap(CalciteTables.LakeTable.class);
          if (table != null) {
            String column = found.getOriginTable().getRowType().getFieldList()
                .get(found.getOriginColumnOrdinal()).getName();
            origin = Optional.of(new ColumnOrigin(table.name, column));
          }
        }
      } catch (RuntimeException e) {
        // Column origins are descriptive only: a plan whose metadata Calcite cannot derive just
        // has none.
        origin = Optional.empty();
      }
      origins.add(origin);
    }
    return origins;
  }
}
