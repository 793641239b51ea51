package dev.lake.sql;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.runtime.Resources;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.validate.SqlValidatorException;

/**
 * lake's wording and status for the validator's errors about names and grouping: an unknown
 * table is TABLE_NOT_FOUND naming it as {@code lake.schema.table}, a bare name in two schemas
 * asks to be qualified, an unknown column is {@code column x not found}, a path into a struct
 * says which field is missing. The error is recognised by the validator's resource that raised
 * it (its method, read once by reflection) and its arguments, never by its text.
 */
final class ValidationErrors {
  private ValidationErrors() {}

  private static final java.lang.reflect.Field METHOD;
  private static final java.lang.reflect.Field ARGS;

  static {
    try {
      METHOD = Resources.Element.class.getDeclaredField("method");
      METHOD.setAccessible(true);
      ARGS = Resources.Inst.class.getDeclaredField("args");
      ARGS.setAccessible(true);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * The validator's error {@code e} at {@code node}, carrying lake's {@link SqlException} as its
   * cause when lake words it; null to keep Calcite's.
   */
  static CalciteContextException translate(SqlNode node, Resources.ExInst<SqlValidatorException> e,
      org.apache.calcite.sql.validate.SqlValidator validator, SqlCatalog catalog,
      Collection<CalciteTables.LakeTable> opened) {
    String resource;
    Object[] args;
    try {
      resource = ((java.lang.reflect.Method) METHOD.get(e)).getName();
      args = (Object[]) ARGS.get(e);
    } catch (ReflectiveOperationException ex) {
      return null;
    }
    SqlException.Kind kind = SqlException.Kind.INVALID;
    String message;
    switch (resource) {
      case "columnNotFound", "columnNotFoundDidYouMean" -> message = "column " + args[0] + " not found"
          + (args.length > 1 ? "; did you mean " + args[1] + "?" : "");
      case "columnNotFoundInTable", "columnNotFoundInTableDidYouMean" -> {
        String nested = NestedNames.problem(String.valueOf(args[0]), false, opened);
        message = nested != null ? nested : "column " + args[0] + " not found in table " + args[1]
            + (args.length > 2 ? "; did you mean " + args[2] + "?" : "");
      }
      case "tableNameNotFound", "tableNameNotFoundDidYouMean" -> {
        // A qualifier in an expression (x.id) that names no table of FROM.
        String nested = NestedNames.problem(String.valueOf(args[0]), true, opened);
        message = nested != null ? nested : "table or alias " + args[0] + " not found in FROM";
      }
      case "objectNotFound", "objectNotFoundWithin", "objectNotFoundDidYouMean",
          "objectNotFoundWithinDidYouMean" -> {
        if (!(node instanceof SqlIdentifier id)) {
          return null;
        }
        kind = SqlException.Kind.TABLE_NOT_FOUND;
        message = tableNotFound(id.names, catalog);
      }
      case "canNotApplyOp2Type" -> {
        if (!(node instanceof org.apache.calcite.sql.SqlCall call)) {
          return null;
        }
        List<String> types = new ArrayList<>();
        for (SqlNode operand : call.getOperandList()) {
          RelDataType t = operand == null ? null : validator.getValidatedNodeTypeIfKnown(operand);
          types.add(t == null ? "?" : t.getSqlTypeName() == org.apache.calcite.sql.type.SqlTypeName.CHAR
              || t.getSqlTypeName() == org.apache.calcite.sql.type.SqlTypeName.VARCHAR ? "VARCHAR"
              : t.toString());
        }
        message = call.getOperator().getName().toLowerCase(Locale.ROOT) + " cannot take "
            + String.join(", ", types) + " (in "
            + call.toSqlString(org.apache.calcite.sql.dialect.PostgresqlSqlDialect.DEFAULT).getSql()
            + "); it takes " + String.valueOf(args[2]).replace("\n", ", ");
      }
      case "notGroupExpr" -> message = "column " + args[0]
          + " must appear in GROUP BY or be used in an aggregate function";
      case "nestedAggIllegal" -> message = "aggregate function calls cannot be nested";
      case "aggregateIllegalInClause" -> message = "aggregate functions are not allowed in " + args[0];
      default -> {
        return null;
      }
    }
    SqlParserPos pos = node.getParserPosition();
    return new CalciteContextException(message, new SqlException(kind, message),
        pos.getLineNum(), pos.getColumnNum(), pos.getEndLineNum(), pos.getEndColumnNum());
  }

  /** Why the table {@code names} of FROM does not resolve, as the user would want it said. */
  private static String tableNotFound(List<String> names, SqlCatalog catalog) {
    String display = String.join(".", names);
    if (names.size() == 3 && catalog.federated().containsKey(names.getFirst())) {
      return "table " + display + " not found";
    }
    if (names.size() == 3 && !names.getFirst().equalsIgnoreCase(SqlCatalog.LAKE)) {
      return "catalog " + names.getFirst() + " not found (table " + display + ")";
    }
    if (names.size() == 2) {
      return "table " + SqlCatalog.LAKE + "." + display + " not found";
    }
    if (names.size() == 1) {
      List<String> schemas = new ArrayList<>();
      for (String schema : catalog.schemaNames()) {
        for (String table : catalog.tableNames(schema)) {
          if (table.toLowerCase(Locale.ROOT).equals(names.getFirst().toLowerCase(Locale.ROOT))) {
            schemas.add(schema);
            break;
          }
        }
      }
      if (schemas.size() > 1) {
        return "table " + display + " is ambiguous (it exists in schemas " + String.join(", ", schemas)
            + "); qualify it as schema.table";
      }
    }
    return "table " + display + " not found";
  }
}
