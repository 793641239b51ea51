package dev.lake.sql;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.JoinConditionType;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.util.SqlShuttle;

/**
 * Qualifies the bare column names in the SELECT list and WHERE of a join of many tables
 * ({@code x1} becomes {@code t1.x1}) before validation, each by the one table that has a column of
 * that name. Calcite resolves a bare name by trying each table of the FROM clause, and each try
 * searches the FROM clause again for that table: quadratic in the tables for every name, so
 * SQLite's 64-table joins (about 200 bare names) spent most of their planning there. A qualified
 * name is found in one pass, and resolves to the same column. Names that are no column or a
 * column of several tables are left as they are, for the validator to report.
 *
 * <p>Applies only to a SELECT whose FROM clause is plain tables (aliased or not) joined without
 * {@code USING} or {@code NATURAL}, of at least {@link #MIN_TABLES} tables; subqueries are left
 * as they are (their names may be their own tables' columns).
 */
final class ColumnQualification {

  /** Below this many tables the validator's own resolution costs less than looking tables up. */
  static final int MIN_TABLES = 10;

  private ColumnQualification() {}

  /**
   * {@code query} with its bare column names qualified, in place (the tree is the caller's own).
   *
   * @param rowTypes the row type of the table a (possibly qualified) name resolves to, as the
   *     validator resolves it, or null when there is none
   */
  static SqlNode apply(SqlNode query, Function<List<String>, RelDataType> rowTypes) {
    SqlSelect select = query instanceof SqlOrderBy orderBy && orderBy.query instanceof SqlSelect s ? s
        : query instanceof SqlSelect s ? s : null;
    if (select == null || select.getFrom() == null || countTables(select.getFrom()) < MIN_TABLES) {
      return query;
    }
    Map<String, RelDataType> tables = new HashMap<>();
    if (!collect(select.getFrom(), rowTypes, tables)) {
      return query;
    }
    Map<String, String> owners = new HashMap<>();
    Set<String> shared = new HashSet<>();
    tables.forEach((alias, rowType) -> {
      for (RelDataTypeField field : rowType.getFieldList()) {
        if (owners.putIfAbsent(field.getName(), alias) != null) {
          shared.add(field.getName());
        }
      }
    });
    shared.forEach(owners::remove);
    Qualifier qualifier = new Qualifier(owners);
    select.setSelectList((SqlNodeList) select.getSelectList().accept(qualifier));
    if (select.getWhere() != null) {
      select.setWhere(select.getWhere().accept(qualifier));
    }
    return query;
  }

  private static int countTables(SqlNode from) {
    return from instanceof SqlJoin join ? countTables(join.getLeft()) + countTables(join.getRight()) : 1;
  }

  /** Each table of {@code from} by its alias; false when {@code from} is not plain tables or an alias repeats. */
  private static boolean collect(SqlNode from, Function<List<String>, RelDataType> rowTypes,
      Map<String, RelDataType> tables) {
    if (from instanceof SqlJoin join) {
      return !join.isNatural() && join.getConditionType() != JoinConditionType.USING
          && collect(join.getLeft(), rowTypes, tables) && collect(join.getRight(), rowTypes, tables);
    }
    SqlIdentifier name;
    String alias;
    if (from instanceof SqlIdentifier id) {
      name = id;
      alias = id.names.getLast();
    } else if (from instanceof SqlCall as && as.getKind() == SqlKind.AS && as.operandCount() == 2
        && as.operand(0) instanceof SqlIdentifier id && as.operand(1) instanceof SqlIdentifier a) {
      name = id;
      alias = a.getSimple();
    } else {
      return false;
    }
    RelDataType rowType = name.isStar() ? null : rowTypes.apply(name.names);
    return rowType != null && tables.putIfAbsent(alias, rowType) == null;
  }

  /** Qualifies bare names of columns, leaving aliases, subqueries, windows and named arguments alone. */
  private static final class Qualifier extends SqlShuttle {
    private final Map<String, String> owners;

    Qualifier(Map<String, String> owners) {
      this.owners = owners;
    }

    @Override
    public SqlNode visit(SqlIdentifier id) {
      String owner = id.isSimple() ? owners.get(id.getSimple()) : null;
      return owner == null ? id : new SqlIdentifier(List.of(owner, id.getSimple()), id.getParserPosition());
    }

    @Override
    public SqlNode visit(SqlCall call) {
      SqlKind kind = call.getKind();
      if (kind == SqlKind.AS) {
        SqlNode value = call.operand(0).accept(this);
        if (value != call.operand(0)) {
          call.setOperand(0, value);
        }
        return call;
      }
      if (SqlKind.QUERY.contains(kind) || kind == SqlKind.OVER || kind == SqlKind.WINDOW
          || kind == SqlKind.ARGUMENT_ASSIGNMENT || kind == SqlKind.LAMBDA || kind == SqlKind.DOT) {
        return call;
      }
      return super.visit(call);
    }
  }
}
