package dev.lake.engine;

import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The one rule every engine applies to {@link TableHandle#append}: the batches must carry the
 * table's columns, in order, with the same names and types (children included); a column the
 * table declares NOT NULL must not arrive nullable, while a non-nullable column may go into a
 * nullable one.
 */
public final class AppendSchemas {

  private AppendSchemas() {}

  /**
   * @throws SchemaMismatchException naming the first column that differs and saying that nothing
   *     was written
   */
  public static void requireAppendable(TableLocation location, Schema table, Schema incoming) {
    List<Field> want = table.getFields();
    List<Field> got = incoming.getFields();
    for (int i = 0; i < Math.max(want.size(), got.size()); i++) {
      Field w = i < want.size() ? want.get(i) : null;
      Field g = i < got.size() ? got.get(i) : null;
      String problem = null;
      if (w == null) {
        problem = "batches have an extra column '" + g.getName() + "'";
      } else if (g == null) {
        problem = "batches lack column '" + w.getName() + "'";
      } else if (!w.getName().equals(g.getName())) {
        problem = "column " + i + " is '" + w.getName() + "' in the table but '" + g.getName()
            + "' in the batches";
      } else if (!w.getType().equals(g.getType()) || !sameChildren(w, g)) {
        problem = "column '" + w.getName() + "' is " + w.getType() + " in the table but "
            + g.getType() + " in the batches";
      } else if (!w.isNullable() && g.isNullable()) {
        problem = "column '" + w.getName() + "' is NOT NULL in the table but nullable in the batches";
      }
      if (problem != null) {
        throw new SchemaMismatchException(location, problem + "; nothing was written");
      }
    }
  }

  private static boolean sameChildren(Field a, Field b) {
    if (a.getChildren().size() != b.getChildren().size()) {
      return false;
    }
    for (int i = 0; i < a.getChildren().size(); i++) {
      Field x = a.getChildren().get(i);
      Field y = b.getChildren().get(i);
      if (!x.getName().equals(y.getName()) || !x.getType().equals(y.getType())
          || !sameChildren(x, y)) {
        return false;
      }
    }
    return true;
  }
}
