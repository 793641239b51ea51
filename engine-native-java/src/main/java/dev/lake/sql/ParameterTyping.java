package dev.lake.sql;

import java.util.List;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.fun.SqlCase;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Types the {@code ?} that only a literal beside it can type, the way PostgreSQL resolves an
 * unknown-typed parameter from its siblings, before Calcite's validator sees the statement:
 *
 * <ul>
 *   <li>an operand of {@code COALESCE}, {@code NULLIF}, {@code GREATEST}/{@code LEAST} or a
 *       result of {@code CASE} beside a literal takes the literal's type ({@code COALESCE(?,
 *       'x')} is VARCHAR, {@code NULLIF(?, 1)} INTEGER, beside a decimal or float literal
 *       DOUBLE);
 *   <li>{@code ? IN (1, 2)} takes the type of the list's first literal.
 * </ul>
 *
 * Each such {@code ?} becomes {@code CAST(? AS type)}, so the parameter's type is the cast's (as
 * if the client had written it). An arithmetic operator whose operands are all parameters ({@code
 * ? + ?}, {@code -?}) has no type to take at all: it is refused as PostgreSQL refuses it ("operator
 * is not unique"), naming the parameter's position and the cast to add.
 */
final class ParameterTyping {
  private ParameterTyping() {}

  /** Rewrites {@code statement} in place and returns it. */
  static SqlNode rewrite(SqlNode statement) {
    statement.accept(new SqlBasicVisitor<Void>() {
      @Override
      public Void visit(SqlCall call) {
        type(call);
        return super.visit(call);
      }
    });
    return statement;
  }

  private static void type(SqlCall call) {
    String name = call.getOperator().getName().toUpperCase(java.util.Locale.ROOT);
    SqlKind kind = switch (name) {
      case "COALESCE" -> SqlKind.COALESCE;
      case "NULLIF" -> SqlKind.NULLIF;
      case "GREATEST" -> SqlKind.GREATEST;
      case "LEAST" -> SqlKind.LEAST;
      default -> call.getKind();
    };
    switch (kind) {
      case COALESCE, NULLIF, GREATEST, LEAST -> {
        if (call instanceof SqlBasicCall basic) {
          SqlDataTypeSpec type = literalType(call.getOperandList());
          if (type != null) {
            for (int i = 0; i < basic.operandCount(); i++) {
              if (basic.operand(i) instanceof SqlDynamicParam param) {
                basic.setOperand(i, cast(param, type));
              }
            }
          }
        }
      }
      case CASE -> {
        SqlCase c = (SqlCase) call;
        List<SqlNode> results = new java.util.ArrayList<>(c.getThenOperands().getList());
        if (c.getElseOperand() != null) {
          results.add(c.getElseOperand());
        }
        SqlDataTypeSpec type = literalType(results);
        if (type != null) {
          SqlNodeList thens = c.getThenOperands();
          for (int i = 0; i < thens.size(); i++) {
            if (thens.get(i) instanceof SqlDynamicParam param) {
              thens.set(i, cast(param, type));
            }
          }
          if (c.getElseOperand() instanceof SqlDynamicParam param) {
            c.setOperand(3, cast(param, type));
          }
        }
      }
      case IN, NOT_IN -> {
        if (call instanceof SqlBasicCall basic && basic.operand(0) instanceof SqlDynamicParam param
            && basic.operand(1) instanceof SqlNodeList list) {
          SqlDataTypeSpec type = literalType(list.getList());
          if (type != null) {
            basic.setOperand(0, cast(param, type));
          }
        }
      }
      case PLUS, MINUS, TIMES, DIVIDE, MOD, MINUS_PREFIX, PLUS_PREFIX -> {
        List<SqlNode> operands = call.getOperandList();
        if (!operands.isEmpty() && operands.stream().allMatch(o -> o instanceof SqlDynamicParam
            || SqlUtilNull.isNull(o))) {
          SqlDynamicParam first = (SqlDynamicParam) operands.stream()
              .filter(o -> o instanceof SqlDynamicParam).findFirst().orElseThrow();
          SqlParserPos pos = first.getParserPosition();
          String operator = call.getOperator().getName();
          String example = operands.size() > 1
              ? "cast one, e.g. CAST(? AS BIGINT) " + operator + " ?"
              : "cast it, e.g. " + operator + "CAST(? AS BIGINT)";
          throw new SqlException(SqlException.Kind.INVALID, "could not determine the type of"
              + " parameter " + (first.getIndex() + 1) + ": no operand of '" + operator
              + "' has a type (each is a parameter or NULL); " + example,
              pos.getLineNum(), pos.getColumnNum(), null);
        }
      }
      default -> { }
    }
  }

  // The type of the first literal among the nodes (a bare NULL is none), or null.
  private static SqlDataTypeSpec literalType(List<SqlNode> nodes) {
    for (SqlNode node : nodes) {
      SqlTypeName name = switch (node) {
        case SqlCharStringLiteral s -> SqlTypeName.VARCHAR;
        case SqlNumericLiteral n when n.isExact() && n.getScale() != null && n.getScale() == 0 ->
            n.bigDecimalValue().abs().compareTo(java.math.BigDecimal.valueOf(Integer.MAX_VALUE)) <= 0
                ? SqlTypeName.INTEGER : SqlTypeName.BIGINT;
        // A decimal literal's precision is its own, too narrow for the values a client binds.
        case SqlNumericLiteral n -> SqlTypeName.DOUBLE;
        case SqlLiteral l when l.getTypeName() == SqlTypeName.BOOLEAN -> SqlTypeName.BOOLEAN;
        case SqlLiteral l when l.getTypeName() == SqlTypeName.DATE -> SqlTypeName.DATE;
        case SqlLiteral l when l.getTypeName() == SqlTypeName.TIMESTAMP -> SqlTypeName.TIMESTAMP;
        default -> null;
      };
      if (name != null) {
        return new SqlDataTypeSpec(new SqlBasicTypeNameSpec(name, node.getParserPosition()),
            node.getParserPosition());
      }
    }
    return null;
  }

  private static SqlNode cast(SqlDynamicParam param, SqlDataTypeSpec type) {
    return SqlStdOperatorTable.CAST.createCall(param.getParserPosition(), param, type);
  }

  /** NULL literals, spelled out to keep the switch above readable. */
  private static final class SqlUtilNull {
    static boolean isNull(SqlNode node) {
      return node instanceof SqlLiteral l && l.getTypeName() == SqlTypeName.NULL;
    }
  }
}
