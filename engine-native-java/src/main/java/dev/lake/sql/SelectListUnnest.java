package dev.lake.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.JoinConditionType;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlShuttle;

/**
 * {@code unnest(list)} in a select list, PostgreSQL's set-returning function: {@code SELECT id,
 * unnest(joints) FROM t} is {@code SELECT id, u.c0 AS unnest FROM t, UNNEST(joints) AS u(c0)},
 * and several in one select list zip into one {@code UNNEST(a, b)} (PostgreSQL 10+: as many rows
 * as the longest list, NULL past the end of the shorter). Calcite's parser knows UNNEST only in
 * FROM, so before parsing each {@code unnest(} of a select list is renamed to the internal
 * function {@value #MARK} of the same length (so error positions stay), and after parsing the
 * select is rewritten ({@link #rewrite}).
 */
final class SelectListUnnest {
  private SelectListUnnest() {}

  /** The name a select list's {@code unnest} is parsed under; as long as "unnest". */
  static final String MARK = "lk_unn";
  private static final String ALIAS = "lk_unnest";

  /**
   * {@code sql} with every {@code unnest(} that stands in a select list (the clause keyword last
   * seen at its parenthesis depth is SELECT) renamed to {@link #MARK}; literals, quoted names and
   * comments untouched.
   */
  static String mark(String sql) {
    if (!sql.toLowerCase(Locale.ROOT).contains("unnest")) {
      return sql;
    }
    StringBuilder out = new StringBuilder(sql);
    List<String> clause = new ArrayList<>();
    clause.add("");
    int n = sql.length();
    int i = 0;
    while (i < n) {
      char c = sql.charAt(i);
      int skipped = SqlParsing.skipQuotedOrComment(sql, i);
      if (skipped > i) {
        i = skipped;
      } else if (c == '(') {
        clause.add("");
        i++;
      } else if (c == ')') {
        if (clause.size() > 1) {
          clause.removeLast();
        }
        i++;
      } else if (Character.isLetter(c) || c == '_') {
        int end = i;
        while (end < n && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_')) {
          end++;
        }
        String word = sql.substring(i, end).toLowerCase(Locale.ROOT);
        switch (word) {
          case "select", "from", "where", "group", "having", "order", "limit", "offset", "union", "except",
              "intersect", "window", "values", "fetch", "join", "on", "using" -> clause.set(clause.size() - 1, word);
          case "unnest" -> {
            int next = end;
            while (next < n && Character.isWhitespace(sql.charAt(next))) {
              next++;
            }
            if (next < n && sql.charAt(next) == '(' && clause.getLast().equals("select")) {
              out.replace(i, end, MARK);
            }
          }
          default -> { }
        }
        i = end;
      } else {
        i++;
      }
    }
    return out.toString();
  }

  /** {@code node} with each select whose select list calls {@link #MARK} rewritten into a lateral UNNEST. */
  static SqlNode rewrite(SqlNode node) {
    switch (node) {
      case null -> {
        return null;
      }
      case org.apache.calcite.sql.SqlOrderBy ob -> {
        SqlNode query = rewrite(ob.query);
        return query == ob.query ? ob
            : new org.apache.calcite.sql.SqlOrderBy(ob.getParserPosition(), query, ob.orderList, ob.offset, ob.fetch);
      }
      case SqlSelect select -> {
        select.setFrom(rewrite(select.getFrom()));
        select.setWhere(rewrite(select.getWhere()));
        return select(select);
      }
      case SqlJoin join -> {
        join.setLeft(rewrite(join.getLeft()));
        join.setRight(rewrite(join.getRight()));
        return join;
      }
      case SqlCall call -> {
        rewriteEach(call.getOperandList(), call::setOperand);
        return call;
      }
      case SqlNodeList list -> {
        rewriteEach(list, list::set);
        return list;
      }
      default -> {
        return node;
      }
    }
  }

  /** Rewrites each of {@code nodes}, replacing through {@code set} those that change. */
  private static void rewriteEach(List<SqlNode> nodes, java.util.function.BiConsumer<Integer, SqlNode> set) {
    for (int i = 0; i < nodes.size(); i++) {
      SqlNode node = nodes.get(i);
      SqlNode rewritten = rewrite(node);
      if (rewritten != node) {
        set.accept(i, rewritten);
      }
    }
  }

  private static boolean isMark(SqlNode node) {
    return node instanceof SqlCall call && call.getOperator().getName().equalsIgnoreCase(MARK);
  }

  private static SqlNode select(SqlSelect select) {
    SqlNodeList items = select.getSelectList();
    List<SqlNode> lists = new ArrayList<>();
    SqlNodeList rewritten = new SqlNodeList(items.getParserPosition());
    for (SqlNode item : items) {
      SqlNode expr = item;
      String alias = "unnest";
      if (item instanceof SqlCall as && as.getKind() == SqlKind.AS) {
        expr = as.operand(0);
        alias = ((SqlIdentifier) as.operand(1)).getSimple();
      }
      if (isMark(expr)) {
        SqlCall call = (SqlCall) expr;
        if (call.operandCount() != 1) {
          throw refusal(call, "unnest in a select list takes one list");
        }
        SqlParserPos pos = call.getParserPosition();
        SqlIdentifier column = new SqlIdentifier(List.of(ALIAS, "c" + lists.size()), pos);
        lists.add(call.operand(0));
        rewritten.add(SqlStdOperatorTable.AS.createCall(pos, column, new SqlIdentifier(alias, pos)));
      } else {
        checkNoMark(item);
        rewritten.add(item);
      }
    }
    if (lists.isEmpty()) {
      return select;
    }
    if (select.getGroup() != null || select.getHaving() != null || select.getWindowList() != null
        && !select.getWindowList().isEmpty()) {
      throw refusal(select, "unnest in the select list of a grouped query is not supported yet;"
          + " unnest in FROM: FROM t, UNNEST(t.list) AS u(x)");
    }
    SqlParserPos pos = select.getParserPosition();
    List<SqlNode> asOperands = new ArrayList<>();
    asOperands.add(SqlStdOperatorTable.UNNEST.createCall(pos, lists));
    asOperands.add(new SqlIdentifier(ALIAS, pos));
    for (int k = 0; k < lists.size(); k++) {
      asOperands.add(new SqlIdentifier("c" + k, pos));
    }
    SqlNode unnest = SqlStdOperatorTable.AS.createCall(pos, asOperands);
    SqlNode from = select.getFrom() == null ? unnest
        : new SqlJoin(pos, select.getFrom(), SqlLiteral.createBoolean(false, pos), JoinType.COMMA.symbol(pos),
            SqlStdOperatorTable.LATERAL.createCall(pos, unnest), JoinConditionType.NONE.symbol(pos), null);
    select.setFrom(from);
    select.setSelectList(rewritten);
    return select;
  }

  private static void checkNoMark(SqlNode node) {
    node.accept(new SqlShuttle() {
      @Override
      public SqlNode visit(SqlCall call) {
        if (isMark(call)) {
          throw refusal(call, "unnest(...) inside an expression is not supported; select unnest(list) as a"
              + " column of its own, or unnest in FROM");
        }
        return super.visit(call);
      }
    });
  }

  private static SqlException refusal(SqlNode at, String message) {
    SqlParserPos pos = at.getParserPosition();
    return new SqlException(SqlException.Kind.UNSUPPORTED, message + " (line " + pos.getLineNum() + ", column "
        + pos.getColumnNum() + ")", pos.getLineNum(), pos.getColumnNum(), null);
  }
}
