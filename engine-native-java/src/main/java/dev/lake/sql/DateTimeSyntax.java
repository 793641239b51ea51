package dev.lake.sql;

import dev.lake.exec.fn.DateTimeFunctions;
import dev.lake.exec.fn.ScalarFunction;
import java.util.Locale;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;

/**
 * SQL's date and time spellings that Calcite's parser binds to its own operators, as calls of the
 * registry's {@link DateTimeFunctions}: {@code EXTRACT(field FROM x)} and {@code date_part(field,
 * x)} with the field unquoted are {@code date_part('field', x)}; {@code CURRENT_TIMESTAMP}, {@code LOCALTIMESTAMP} and {@code CURRENT_DATE} (written without
 * parentheses) are {@code now()} and {@code today()}.
 */
final class DateTimeSyntax {
  private DateTimeSyntax() {}

  /** Whether {@code call} is one of these spellings. */
  static boolean spells(SqlCall call) {
    SqlOperator op = call.getOperator();
    return op == SqlStdOperatorTable.EXTRACT || unitDatePart(call) || clock(op) != null;
  }

  /** The registry call {@code call} spells, or null when it is none of these. */
  static SqlNode replacement(SqlCall call) {
    var pos = call.getParserPosition();
    SqlOperator op = call.getOperator();
    if (op == SqlStdOperatorTable.EXTRACT || unitDatePart(call)) {
      SqlNode unit = call.operand(0);
      String field = switch (unit) {
        case SqlIntervalQualifier q -> q.timeFrameName != null ? q.timeFrameName : q.timeUnitRange.name();
        case SqlLiteral l -> l.toValue();
        default -> unit.toString();
      };
      return FunctionOperators.operator(DateTimeFunctions.DATE_PART).createCall(pos,
          SqlLiteral.createCharString(field.toLowerCase(Locale.ROOT), unit.getParserPosition()), call.operand(1));
    }
    ScalarFunction clock = clock(op);
    if (clock != null) {
      if (call.operandCount() > 0) {
        throw new SqlException(SqlException.Kind.UNSUPPORTED, op.getName() + "(precision) is not supported;"
            + " write " + op.getName() + " (microseconds) or date_trunc('second', " + op.getName() + ")",
            pos.getLineNum(), pos.getColumnNum(), null);
      }
      return FunctionOperators.operator(clock).createCall(pos);
    }
    return null;
  }

  /** {@code date_part(year, x)}: the parser reads an unquoted first argument as a time unit. */
  private static boolean unitDatePart(SqlCall call) {
    return call.getOperator().getName().equalsIgnoreCase("DATE_PART") && call.operandCount() == 2
        && call.operand(0) instanceof SqlIntervalQualifier;
  }

  /**
   * The registry function a bare {@code current_timestamp}, {@code localtimestamp} or {@code
   * current_date} names (the validator resolves such a word, read as a name, by looking it up).
   */
  static ScalarFunction nullary(String name) {
    return switch (name.toUpperCase(Locale.ROOT)) {
      case "CURRENT_TIMESTAMP", "LOCALTIMESTAMP" -> DateTimeFunctions.NOW;
      case "CURRENT_DATE" -> DateTimeFunctions.CURRENT_DATE;
      default -> null;
    };
  }

  private static ScalarFunction clock(SqlOperator op) {
    if (op == SqlStdOperatorTable.CURRENT_TIMESTAMP || op == SqlStdOperatorTable.LOCALTIMESTAMP) {
      return DateTimeFunctions.NOW;
    }
    return op == SqlStdOperatorTable.CURRENT_DATE ? DateTimeFunctions.CURRENT_DATE : null;
  }
}
