package dev.lake.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSelectKeyword;

/**
 * Result column names (docs/sql.md): the alias, else the column name, else {@code fn(col)},
 * {@code fn(distinct col)} or {@code count(*)} for an aggregate of a bare column, else
 * {@code expr$i} for the 0-based position {@code i}.
 */
final class OutputNames {
  private OutputNames() {}

  /**
   * @param validated the validated statement
   * @param names the validator's names, {@code expr$i} for an unnamed expression
   */
  static List<String> of(SqlNode validated, List<String> names) {
    if (!(validated instanceof SqlSelect select) || select.getSelectList().size() != names.size()) {
      return names;
    }
    List<String> out = new ArrayList<>(names);
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i).equals("expr$" + i) && select.getSelectList().get(i) instanceof SqlCall call) {
        String name = aggregateName(call);
        if (name != null) {
          out.set(i, name);
        }
      }
    }
    return out;
  }

  private static String aggregateName(SqlCall call) {
    if (!call.getOperator().isAggregator() || call.getOperator().getSyntax()
        != org.apache.calcite.sql.SqlSyntax.FUNCTION && call.getOperator().getSyntax()
        != org.apache.calcite.sql.SqlSyntax.FUNCTION_STAR) {
      return null;
    }
    String fn = call.getOperator().getName().toLowerCase(Locale.ROOT);
    List<SqlNode> operands = call.getOperandList();
    if (operands.isEmpty() || operands.size() == 1 && operands.getFirst() instanceof SqlIdentifier star
        && star.isStar()) {
      return fn.equals("count") ? "count(*)" : null;
    }
    if (operands.size() == 1 && operands.getFirst() instanceof SqlIdentifier column && !column.isStar()) {
      boolean distinct = call.getFunctionQuantifier() != null
          && call.getFunctionQuantifier().getValue() == SqlSelectKeyword.DISTINCT;
      return fn + "(" + (distinct ? "distinct " : "") + column.names.getLast() + ")";
    }
    return null;
  }
}
