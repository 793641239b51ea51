package dev.lake.sql;

import dev.lake.exec.SqlType;
import java.util.Collection;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Says what is wrong with a dotted name into a struct column when Calcite could not resolve it,
 * which Calcite's own errors (column not found in table, table not found) do not: the struct that lacks the field and the fields it has, or the column or
 * field that is not a struct at all.
 */
final class NestedNames {
  private NestedNames() {}

  /**
   * The problem with {@code name} (the dotted name Calcite could not resolve) when it is a path
   * into a column of one of {@code tables}; null when it is about something else.
   *
   * @param accessed whether Calcite took the whole name for a table, that is, a field was taken
   *     of it
   */
  static String problem(String name, boolean accessed, Collection<CalciteTables.LakeTable> tables) {
    List<String> parts = List.of(name.split("\\."));
    for (CalciteTables.LakeTable table : tables) {
      for (Field column : table.snapshot.schema().getFields()) {
        if (column.getName().equals(parts.getFirst())) {
          String problem = walk(column, parts, accessed);
          if (problem != null) {
            return problem;
          }
        }
      }
    }
    return null;
  }

  /**
   * Follows {@code parts} from {@code column}; {@code accessed} when Calcite reported the whole
   * name as a table, that is, a field was taken of it.
   */
  private static String walk(Field column, List<String> parts, boolean accessed) {
    Field at = column;
    String path = parts.getFirst();
    for (int i = 1; i <= parts.size(); i++) {
      String next = i < parts.size() ? parts.get(i) : null;
      if (next == null && !accessed) {
        return null;
      }
      String wanted = next == null ? "fields" : "field " + next;
      switch (at.getType()) {
        case ArrowType.Struct s -> {
          if (next == null) {
            return null;
          }
          Field child = at.getChildren().stream().filter(c -> c.getName().equals(next)).findFirst().orElse(null);
          if (child == null) {
            return "struct " + path + " has no field " + next + " (its fields: "
                + String.join(", ", at.getChildren().stream().map(Field::getName).toList()) + ")";
          }
          at = child;
          path = path + "." + next;
        }
        case ArrowType.List l -> {
          return listProblem(path, wanted);
        }
        case ArrowType.LargeList l -> {
          return listProblem(path, wanted);
        }
        case ArrowType.FixedSizeList l -> {
          return listProblem(path, wanted);
        }
        default -> {
          return path + " is " + sqlName(at) + ", not a struct, so it has no " + wanted;
        }
      }
    }
    return null;
  }

  private static String listProblem(String path, String wanted) {
    return path + " is a list, not a struct, so it has no " + wanted + "; take an element first, as in "
        + path + "[1]";
  }

  private static String sqlName(Field field) {
    return SqlType.fromArrow(field.getType(), true).map(SqlType::toString).orElse(field.getType().toString());
  }
}
