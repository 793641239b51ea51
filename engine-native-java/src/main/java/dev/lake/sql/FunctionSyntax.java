package dev.lake.sql;

import dev.lake.exec.fn.MathFunctions;
import dev.lake.exec.fn.RegexFunctions;
import dev.lake.exec.fn.ScalarFunction;
import dev.lake.exec.fn.StringFunctions;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.fun.SqlTrimFunction;

/**
 * SQL's special spellings of registry functions, which Calcite's parser binds to its own
 * operators: {@code TRIM([BOTH | LEADING | TRAILING] [c FROM] s)}, {@code POSITION(a IN b)},
 * {@code SUBSTRING(s FROM a FOR b)}, {@code CEIL(x)}/{@code FLOOR(x)}, {@code a || b} and
 * {@code a [NOT] ILIKE b}, and the date and time forms of {@link DateTimeSyntax}. Before validation each becomes a call of the registry's function
 * ({@code btrim}/{@code ltrim}/{@code rtrim}, {@code strpos}, {@code substring}, ...), so the
 * registry is the only definition of what they take and compute.
 */
final class FunctionSyntax {
  private FunctionSyntax() {}


  /** Rewrites {@code node}'s special spellings in place (and returns it). */
  static SqlNode rewrite(SqlNode node) {
    if (node instanceof SqlOrderBy ob) {
      return new SqlOrderBy(ob.getParserPosition(), rewrite(ob.query), (SqlNodeList) rewrite(ob.orderList),
          ob.offset, ob.fetch);
    }
    if (node instanceof SqlNodeList list) {
      for (int i = 0; i < list.size(); i++) {
        SqlNode item = list.get(i);
        if (item != null) {
          list.set(i, rewrite(item));
        }
      }
      return list;
    }
    if (!(node instanceof SqlCall call)) {
      return node;
    }
    List<SqlNode> operands = call.getOperandList();
    for (int i = 0; i < operands.size(); i++) {
      SqlNode operand = operands.get(i);
      if (operand != null) {
        SqlNode rewritten = rewrite(operand);
        if (rewritten != operand) {
          call.setOperand(i, rewritten);
        }
      }
    }
    SqlNode replaced = replacement(call);
    return replaced != null ? replaced : call;
  }

  /** The registry call {@code call} spells, or null when it is not one of the special spellings. */
  private static SqlNode replacement(SqlCall call) {
    var pos = call.getParserPosition();
    var op = call.getOperator();
    if (op instanceof SqlTrimFunction) {
      SqlTrimFunction.Flag flag = ((SqlLiteral) call.operand(0)).getValueAs(SqlTrimFunction.Flag.class);
      ScalarFunction f = switch (flag) {
        case BOTH -> StringFunctions.BTRIM;
        case LEADING -> StringFunctions.LTRIM;
        case TRAILING -> StringFunctions.RTRIM;
      };
      return registry(f).createCall(pos, call.operand(2), call.operand(1));
    }
    if (call.getKind() == SqlKind.POSITION) {
      if (call.operandCount() != 2) {
        throw new SqlException(SqlException.Kind.UNSUPPORTED, "POSITION(... IN ... FROM n) is not supported yet;"
            + " use strpos(substring(s, n), sub) (line " + pos.getLineNum() + ", column " + pos.getColumnNum() + ")",
            pos.getLineNum(), pos.getColumnNum(), null);
      }
      return registry(StringFunctions.STRPOS).createCall(pos, call.operand(1), call.operand(0));
    }
    if (op == SqlStdOperatorTable.SUBSTRING) {
      return registry(StringFunctions.SUBSTRING).createCall(pos, call.getOperandList());
    }
    if ((op == SqlStdOperatorTable.CEIL || op == SqlStdOperatorTable.FLOOR) && call.operandCount() == 1) {
      return registry(op == SqlStdOperatorTable.CEIL ? MathFunctions.CEIL : MathFunctions.FLOOR)
          .createCall(pos, call.getOperandList());
    }
    if (op == SqlStdOperatorTable.PLUS || op == SqlStdOperatorTable.MINUS) {
      // PostgreSQL's date arithmetic (date - date, date ± integer); any other + and - stays Calcite's.
      return (op == SqlStdOperatorTable.PLUS ? DateArithmetic.PLUS : DateArithmetic.MINUS)
          .createCall(pos, call.getOperandList());
    }
    if (op == SqlStdOperatorTable.CONCAT) {
      return registry(StringFunctions.CONCAT_OPERATOR).createCall(pos, call.getOperandList());
    }
    SqlNode datetime = DateTimeSyntax.replacement(call);
    if (datetime != null) {
      return datetime;
    }
    if (op == SqlLibraryOperators.INFIX_CAST) {
      // PostgreSQL's x::T is CAST(x AS T).
      return SqlStdOperatorTable.CAST.createCall(pos, call.getOperandList());
    }
    if (op == SqlLibraryOperators.ILIKE || op == SqlLibraryOperators.NOT_ILIKE) {
      SqlCall ilike = registry(RegexFunctions.ILIKE).createCall(pos, call.getOperandList());
      return op == SqlLibraryOperators.ILIKE ? ilike : SqlStdOperatorTable.NOT.createCall(pos, ilike);
    }
    return RegistryAggregates.replacement(call);
  }

  private static org.apache.calcite.sql.SqlOperator registry(ScalarFunction f) {
    return FunctionOperators.operator(f);
  }
}
