package dev.lake.sql;

import dev.lake.engine.Snapshot;
import dev.lake.engine.TableHandle;
import dev.lake.engine.Version;
import dev.lake.engine.VersionNotFoundException;
import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.SqlType;
import dev.lake.exec.SqlType.Kind;
import dev.lake.exec.expr.Expr;
import dev.lake.exec.expr.Kernel;
import dev.lake.exec.op.SortOperator;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDateLiteral;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSelectKeyword;
import org.apache.calcite.sql.SqlSnapshot;
import org.apache.calcite.sql.SqlTimestampLiteral;
import org.apache.calcite.sql.SqlUnknownLiteral;
import org.apache.calcite.sql.fun.SqlBetweenOperator;
import org.apache.calcite.sql.fun.SqlCase;
import org.apache.calcite.sql.fun.SqlLikeOperator;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.TimestampString;

/**
 * Resolves names and types of one parsed statement against the catalog and produces a
 * {@link BoundQuery}: the select list with {@code *} expanded, implicit casts inserted, GROUP
 * BY/aggregate references rewritten onto the aggregate's output, ORDER BY resolved to output
 * columns, and the optimisations that need the bound tree (projection pushdown, predicate
 * pushdown, limit hint). One instance binds one statement.
 */
final class Binder {

  private final SqlCatalog catalog;
  private final Map<TableName, Version> pins;

  // The scope of the single table reference: its columns and the names that may qualify them.
  private final List<TableColumn> columns = new ArrayList<>();
  private final Set<String> qualifiers = new LinkedHashSet<>();

  private record TableColumn(String name, Field field, SqlType type) {}

  Binder(SqlCatalog catalog, Map<TableName, Version> pins) {
    this.catalog = catalog;
    this.pins = pins;
  }

  static SqlException invalid(String message, SqlNode at) {
    return error(SqlException.Kind.INVALID, message, at);
  }

  static SqlException unsupported(String what, SqlNode at) {
    return error(SqlException.Kind.UNSUPPORTED, what + " is not supported yet", at);
  }

  /** {@link #unsupported} for a plural noun ("subqueries are not supported yet"). */
  static SqlException unsupportedPlural(String what, SqlNode at) {
    return error(SqlException.Kind.UNSUPPORTED, what + " are not supported yet", at);
  }

  static SqlException error(SqlException.Kind kind, String message, SqlNode at) {
    SqlParserPos pos = at == null ? SqlParserPos.ZERO : at.getParserPosition();
    String where = pos.getLineNum() > 0
        ? " (line " + pos.getLineNum() + ", column " + pos.getColumnNum() + ")" : "";
    return new SqlException(kind, message + where, pos.getLineNum(), pos.getColumnNum(), null);
  }

  // ---------------------------------------------------------------- statement

  BoundQuery bind(SqlNode statement) {
    SqlNode query = statement;
    SqlNodeList orderList = null;
    SqlNode offsetNode = null;
    SqlNode fetchNode = null;
    if (query instanceof SqlOrderBy ob) {
      query = ob.query;
      orderList = ob.orderList;
      offsetNode = ob.offset;
      fetchNode = ob.fetch;
    }
    if (!(query instanceof SqlSelect select)) {
      throw unsupported(statementName(query), query);
    }
    if (orderList == null || orderList.isEmpty()) {
      orderList = select.getOrderList();
    }
    offsetNode = offsetNode != null ? offsetNode : select.getOffset();
    fetchNode = fetchNode != null ? fetchNode : select.getFetch();
    if (select.getWindowList() != null && !select.getWindowList().isEmpty()) {
      throw unsupported("WINDOW", select.getWindowList());
    }

    Optional<BoundQuery.Scan> scan = select.getFrom() == null
        ? Optional.empty() : Optional.of(bindFrom(select.getFrom()));

    // SELECT list, expanding * into the table's columns.
    List<Expr> selectExprs = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (SqlNode item : select.getSelectList()) {
      if (item instanceof SqlIdentifier id && id.isStar()) {
        expandStar(id, selectExprs, names);
        continue;
      }
      SqlNode expr = item;
      String alias = null;
      if (item.getKind() == SqlKind.AS) {
        SqlCall as = (SqlCall) item;
        expr = as.operand(0);
        alias = ((SqlIdentifier) as.operand(1)).getSimple();
      }
      Expr bound = bindExpr(expr, true);
      selectExprs.add(bound);
      names.add(alias != null ? alias : defaultName(expr, bound, names.size()));
    }
    int visible = selectExprs.size();

    Expr where = null;
    if (select.getWhere() != null) {
      where = requireBoolean(bindExpr(select.getWhere(), false), select.getWhere(), "WHERE");
    }

    List<Expr> groupKeys = new ArrayList<>();
    if (select.getGroup() != null) {
      for (SqlNode g : select.getGroup()) {
        groupKeys.add(bindGroupKey(g, selectExprs, names));
      }
    }

    Expr having = null;
    if (select.getHaving() != null) {
      having = requireBoolean(bindExpr(select.getHaving(), true), select.getHaving(), "HAVING");
    }

    // ORDER BY: an output ordinal, an output name, or an expression (hidden column if new).
    List<SortOperator.Key> orderBy = new ArrayList<>();
    if (orderList != null) {
      for (SqlNode item : orderList) {
        orderBy.add(bindOrderItem(item, selectExprs, names, visible));
      }
    }
    if (select.isDistinct() && selectExprs.size() > visible) {
      throw invalid("with SELECT DISTINCT, ORDER BY expressions must appear in the select list",
          orderList);
    }

    boolean aggregating = !groupKeys.isEmpty() || having != null
        || selectExprs.stream().anyMatch(e -> e.anyMatch(x -> x instanceof Expr.Agg));
    Optional<BoundQuery.Aggregate> aggregate = Optional.empty();
    List<Expr> projections = selectExprs;
    List<Expr.Agg> calls = new ArrayList<>();
    if (aggregating) {
      projections = new ArrayList<>();
      for (Expr e : selectExprs) {
        projections.add(overAggregate(e, groupKeys, calls));
      }
      if (having != null) {
        having = overAggregate(having, groupKeys, calls);
      }
    }

    // Projection pushdown: read only referenced columns, renumbered in table order.
    List<Expr> preAggregate = new ArrayList<>(aggregating ? groupKeys : projections);
    if (aggregating) {
      calls.stream().filter(c -> c.arg() != null).forEach(c -> preAggregate.add(c.arg()));
    }
    if (where != null) {
      preAggregate.add(where);
    }
    TreeSet<Integer> used = new TreeSet<>();
    for (Expr e : preAggregate) {
      e.anyMatch(x -> {
        if (x instanceof Expr.Column c) {
          used.add(c.index());
        }
        return false;
      });
    }
    for (int index : used) {
      TableColumn column = columns.get(index);
      if (column.type() == null) {
        throw new SqlException(SqlException.Kind.UNSUPPORTED,
            "column " + column.name() + " has type " + column.field().getType()
                + ", which SQL does not support yet");
      }
    }
    if (used.isEmpty() && !columns.isEmpty()) {
      used.add(0); // a scan must read some column to know how many rows there are
    }
    List<Integer> order = new ArrayList<>(used);
    java.util.function.UnaryOperator<Expr> renumber = x -> x instanceof Expr.Column c
        ? new Expr.Column(order.indexOf(c.index()), c.name(), c.type()) : x;
    if (where != null) {
      where = where.transform(renumber);
    }
    if (aggregating) {
      List<Expr> keys = groupKeys.stream().map(k -> k.transform(renumber)).toList();
      List<Expr.Agg> renumbered = calls.stream().map(c -> (Expr.Agg) c.transform(renumber)).toList();
      List<Field> fields = new ArrayList<>();
      for (int k = 0; k < keys.size(); k++) {
        fields.add(keys.get(k).type().field("$key" + k));
      }
      for (int a = 0; a < renumbered.size(); a++) {
        fields.add(renumbered.get(a).type().field("$agg" + a));
      }
      aggregate = Optional.of(new BoundQuery.Aggregate(keys, renumbered, new Schema(fields)));
    } else {
      projections = projections.stream().map(p -> p.transform(renumber)).toList();
    }

    List<Field> projectFields = new ArrayList<>();
    for (int i = 0; i < projections.size(); i++) {
      String name = i < visible ? names.get(i) : "$order" + (i - visible);
      projectFields.add(projections.get(i).type().field(name));
    }
    Schema projectSchema = new Schema(projectFields);
    Schema output = new Schema(projectFields.subList(0, visible));

    long offset = offsetNode == null ? 0 : nonNegativeLong(offsetNode, "OFFSET");
    long limit = fetchNode == null ? Long.MAX_VALUE : nonNegativeLong(fetchNode, "LIMIT");

    if (scan.isPresent()) {
      BoundQuery.Scan s = scan.get();
      List<String> scanColumns = order.stream().map(i -> columns.get(i).name()).toList();
      OptionalLong hint = OptionalLong.empty();
      if (where == null && !aggregating && orderBy.isEmpty() && !select.isDistinct()
          && limit != Long.MAX_VALUE) {
        hint = OptionalLong.of(saturatedAdd(offset, limit));
      }
      scan = Optional.of(new BoundQuery.Scan(s.table(), s.version(), s.snapshot(), scanColumns,
          Optional.ofNullable(where).flatMap(w -> Pushdown.translate(w, scanColumns)), hint));
    }
    return new BoundQuery(scan, where, aggregate, having, List.copyOf(projections), projectSchema,
        select.isDistinct(), orderBy, offset, limit, output);
  }

  static long saturatedAdd(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }

  private static String statementName(SqlNode node) {
    return switch (node.getKind()) {
      case UNION -> "UNION";
      case INTERSECT -> "INTERSECT";
      case EXCEPT -> "EXCEPT";
      case WITH -> "WITH";
      case VALUES -> "VALUES";
      case INSERT -> "INSERT";
      case UPDATE -> "UPDATE";
      case DELETE -> "DELETE";
      case MERGE -> "MERGE";
      case EXPLAIN -> "EXPLAIN";
      default -> node.getKind().sql;
    };
  }

  private static long nonNegativeLong(SqlNode node, String clause) {
    if (node instanceof SqlNumericLiteral n && n.isExact()) {
      BigDecimal v = n.getValueAs(BigDecimal.class);
      if (v.signum() >= 0 && v.scale() <= 0) {
        try {
          return v.longValueExact();
        } catch (ArithmeticException e) {
          throw invalid(clause + " is too large", node);
        }
      }
    }
    throw invalid(clause + " must be a non-negative integer literal", node);
  }

  // ---------------------------------------------------------------- FROM

  private BoundQuery.Scan bindFrom(SqlNode from) {
    SqlNode node = from;
    String alias = null;
    if (node.getKind() == SqlKind.AS) {
      SqlCall as = (SqlCall) node;
      if (as.operandCount() > 2) {
        throw unsupportedPlural("column aliases on a table", node);
      }
      alias = ((SqlIdentifier) as.operand(1)).getSimple();
      node = as.operand(0);
    }
    SqlNode period = null;
    if (node instanceof SqlSnapshot snapshot) {
      period = snapshot.getPeriod();
      node = snapshot.getTableRef();
    }
    switch (node.getKind()) {
      case JOIN -> throw unsupported("JOIN", node);
      case SELECT, ORDER_BY, UNION, INTERSECT, EXCEPT, WITH -> throw unsupportedPlural("subqueries in FROM", node);
      case VALUES -> throw unsupported("VALUES", node);
      default -> {
        if (!(node instanceof SqlIdentifier)) {
          throw unsupported(node.getKind().sql + " in FROM", node);
        }
      }
    }
    SqlIdentifier id = (SqlIdentifier) node;
    TableName name = resolveTable(id);
    TableHandle handle = catalog.openTable(name).orElseThrow(() ->
        error(SqlException.Kind.TABLE_NOT_FOUND, "table " + SqlCatalog.LAKE + "." + name + " not found", id));
    Version version;
    if (period != null && TimeTravel.isTime(period)) {
      version = TimeTravel.at(handle, name, TimeTravel.micros(period), period.getParserPosition());
    } else if (period != null) {
      version = versionOf(period);
    } else if (pins.containsKey(name)) {
      version = pins.get(name);
    } else {
      version = handle.currentVersion();
    }
    Snapshot snapshot;
    try {
      snapshot = handle.snapshot(version);
    } catch (VersionNotFoundException e) {
      SqlNode at = period != null ? period : id;
      SqlParserPos pos = at.getParserPosition();
      throw new SqlException(SqlException.Kind.VERSION_NOT_FOUND,
          "version " + version + " of table " + SqlCatalog.LAKE + "." + name + " not found",
          pos.getLineNum(), pos.getColumnNum(), e);
    }
    qualifiers.add(name.table());
    qualifiers.add(name.schema() + "." + name.table());
    qualifiers.add(SqlCatalog.LAKE + "." + name.schema() + "." + name.table());
    if (alias != null) {
      qualifiers.clear();
      qualifiers.add(alias);
    }
    for (Field field : snapshot.schema().getFields()) {
      if (!field.getChildren().isEmpty()) {
        // Struct and list columns (field access, elements, pass-through) are planned relationally.
        throw error(SqlException.Kind.UNSUPPORTED, "column " + field.getName() + " has type "
            + field.getType() + ", which the single-table binder does not take", id);
      }
      columns.add(new TableColumn(field.getName(), field,
          SqlType.fromArrow(field.getType(), field.isNullable()).orElse(null)));
    }
    return new BoundQuery.Scan(name, version, snapshot, List.of(), Optional.empty(), OptionalLong.empty());
  }

  private static Version versionOf(SqlNode period) {
    if (period instanceof SqlNumericLiteral n && n.isExact()) {
      BigDecimal v = n.getValueAs(BigDecimal.class);
      if (v.signum() >= 0 && v.scale() <= 0 && v.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0) {
        return Version.of(v.longValueExact());
      }
    }
    throw invalid("FOR VERSION AS OF needs a non-negative integer version, got " + period, period);
  }

  private TableName resolveTable(SqlIdentifier id) {
    List<String> parts = id.names;
    String display = String.join(".", parts);
    if (parts.size() > 3) {
      throw error(SqlException.Kind.TABLE_NOT_FOUND, "table " + display + " not found", id);
    }
    if (parts.size() == 3) {
      if (!parts.get(0).equalsIgnoreCase(SqlCatalog.LAKE)) {
        throw error(SqlException.Kind.TABLE_NOT_FOUND,
            "catalog " + parts.get(0) + " not found (table " + display + ")", id);
      }
      parts = parts.subList(1, 3);
    }
    if (parts.size() == 2) {
      String schema = match(catalog.schemaNames(), parts.get(0));
      String table = schema == null ? null : match(catalog.tableNames(schema), parts.get(1));
      if (table == null) {
        throw error(SqlException.Kind.TABLE_NOT_FOUND,
            "table " + SqlCatalog.LAKE + "." + parts.get(0) + "." + parts.get(1) + " not found", id);
      }
      return new TableName(schema, table);
    }
    if (catalog.defaultSchema().isPresent()) {
      String schema = catalog.defaultSchema().get();
      String table = match(catalog.tableNames(schema), parts.get(0));
      if (table != null) {
        return new TableName(schema, table);
      }
    }
    List<TableName> found = new ArrayList<>();
    for (String schema : catalog.schemaNames()) {
      String table = match(catalog.tableNames(schema), parts.get(0));
      if (table != null) {
        found.add(new TableName(schema, table));
      }
    }
    if (found.size() == 1) {
      return found.get(0);
    }
    if (found.isEmpty()) {
      throw error(SqlException.Kind.TABLE_NOT_FOUND, "table " + parts.get(0) + " not found", id);
    }
    throw error(SqlException.Kind.TABLE_NOT_FOUND, "table " + parts.get(0)
        + " is ambiguous (it exists in schemas "
        + String.join(", ", found.stream().map(TableName::schema).toList())
        + "); qualify it as schema.table", id);
  }

  /** Exact name first; otherwise a unique case-insensitive match, or null. */
  private static String match(List<String> candidates, String name) {
    if (candidates.contains(name)) {
      return name;
    }
    String hit = null;
    for (String c : candidates) {
      if (c.equalsIgnoreCase(name)) {
        if (hit != null) {
          return null;
        }
        hit = c;
      }
    }
    return hit;
  }

  private void expandStar(SqlIdentifier star, List<Expr> exprs, List<String> names) {
    if (star.names.size() > 1) {
      String qualifier = String.join(".", star.names.subList(0, star.names.size() - 1));
      if (!qualifiers.contains(qualifier)) {
        throw invalid("table " + qualifier + " not found in FROM", star);
      }
    }
    if (columns.isEmpty() && qualifiers.isEmpty()) {
      throw invalid("SELECT * needs a FROM clause", star);
    }
    for (int i = 0; i < columns.size(); i++) {
      exprs.add(columnRef(i, star));
      names.add(columns.get(i).name());
    }
  }

  private Expr columnRef(int index, SqlNode at) {
    TableColumn c = columns.get(index);
    if (c.type() == null) {
      throw error(SqlException.Kind.UNSUPPORTED, "column " + c.name() + " has type "
          + c.field().getType() + ", which SQL does not support yet", at);
    }
    return new Expr.Column(index, c.name(), c.type());
  }

  private static String defaultName(SqlNode node, Expr bound, int ordinal) {
    if (node instanceof SqlIdentifier id) {
      return id.names.get(id.names.size() - 1);
    }
    if (bound instanceof Expr.Agg agg && node instanceof SqlCall call) {
      String fn = agg.fn().name().toLowerCase(java.util.Locale.ROOT);
      if (agg.arg() == null) {
        return fn + "(*)";
      }
      if (call.operand(0) instanceof SqlIdentifier arg) {
        return fn + "(" + (agg.distinct() ? "distinct " : "") + arg.names.get(arg.names.size() - 1) + ")";
      }
    }
    return "expr$" + ordinal;
  }

  // ---------------------------------------------------------------- GROUP BY / ORDER BY

  private Expr bindGroupKey(SqlNode node, List<Expr> selectExprs, List<String> names) {
    switch (node.getKind()) {
      case ROLLUP, CUBE, GROUPING_SETS -> throw unsupported(node.getKind().sql, node);
      default -> { }
    }
    if (node instanceof SqlNumericLiteral n && n.isExact()) {
      int ordinal = n.intValue(true);
      if (ordinal < 1 || ordinal > names.size()) {
        throw invalid("GROUP BY position " + ordinal + " is not in the select list", node);
      }
      return noAggregate(selectExprs.get(ordinal - 1), node, "GROUP BY");
    }
    if (node instanceof SqlIdentifier id && id.isSimple() && findColumn(id.getSimple()) < 0) {
      int alias = names.indexOf(id.getSimple());
      if (alias >= 0) {
        return noAggregate(selectExprs.get(alias), node, "GROUP BY");
      }
    }
    return bindExpr(node, false);
  }

  private static Expr noAggregate(Expr e, SqlNode at, String clause) {
    if (e.anyMatch(x -> x instanceof Expr.Agg)) {
      throw invalid("aggregate functions are not allowed in " + clause, at);
    }
    return e;
  }

  private SortOperator.Key bindOrderItem(
      SqlNode item, List<Expr> selectExprs, List<String> names, int visible) {
    boolean descending = false;
    Boolean nullsFirst = null;
    SqlNode node = item;
    while (true) {
      switch (node.getKind()) {
        case DESCENDING -> descending = true;
        case NULLS_FIRST -> nullsFirst = true;
        case NULLS_LAST -> nullsFirst = false;
        default -> { }
      }
      if (node.getKind() == SqlKind.DESCENDING || node.getKind() == SqlKind.NULLS_FIRST
          || node.getKind() == SqlKind.NULLS_LAST) {
        node = ((SqlCall) node).operand(0);
      } else {
        break;
      }
    }
    // Like PostgreSQL, NULL sorts as larger than every value: last ascending, first descending.
    boolean nulls = nullsFirst != null ? nullsFirst : descending;
    int column = -1;
    if (node instanceof SqlNumericLiteral n && n.isExact()) {
      int ordinal = n.intValue(true);
      if (ordinal < 1 || ordinal > visible) {
        throw invalid("ORDER BY position " + ordinal + " is not in the select list", node);
      }
      column = ordinal - 1;
    } else if (node instanceof SqlIdentifier id && id.isSimple()
        && names.subList(0, visible).indexOf(id.getSimple()) >= 0
        && names.subList(0, visible).lastIndexOf(id.getSimple())
            == names.subList(0, visible).indexOf(id.getSimple())) {
      column = names.indexOf(id.getSimple());
    } else {
      Expr e = bindExpr(node, true);
      column = selectExprs.indexOf(e);
      if (column < 0) {
        selectExprs.add(e);
        column = selectExprs.size() - 1;
      }
    }
    return new SortOperator.Key(column, descending, nulls);
  }

  /**
   * Rewrites a post-aggregation expression onto the aggregate's output: a subtree equal to a
   * group key becomes that key's column, an aggregate call its column; any other column
   * reference is an error.
   */
  private static Expr overAggregate(Expr e, List<Expr> keys, List<Expr.Agg> calls) {
    int key = keys.indexOf(e);
    if (key >= 0) {
      return new Expr.Column(key, "$key" + key, e.type());
    }
    return switch (e) {
      case Expr.Agg a -> {
        int index = calls.indexOf(a);
        if (index < 0) {
          calls.add(a);
          index = calls.size() - 1;
        }
        yield new Expr.Column(keys.size() + index, "$agg" + index, a.type());
      }
      case Expr.Column c -> throw new SqlException(SqlException.Kind.INVALID, "column " + c.name()
          + " must appear in GROUP BY or be used in an aggregate function");
      case Expr.Nested n -> throw new SqlException(SqlException.Kind.INVALID, n.describe()
          + " must appear in GROUP BY or be used in an aggregate function");
      case Expr.Literal l -> l;
      case Expr.Call c -> new Expr.Call(c.op(),
          c.args().stream().map(x -> overAggregate(x, keys, calls)).toList(), c.type());
      case Expr.Func f -> new Expr.Func(f.function(), f.binding(),
          f.args().stream().map(x -> overAggregate(x, keys, calls)).toList(), f.type());
      case Expr.Cast c -> new Expr.Cast(overAggregate(c.arg(), keys, calls), c.type());
      case Expr.Case c -> new Expr.Case(
          c.whens().stream().map(x -> overAggregate(x, keys, calls)).toList(),
          c.thens().stream().map(x -> overAggregate(x, keys, calls)).toList(),
          overAggregate(c.otherwise(), keys, calls), c.type());
      case Expr.InList in -> new Expr.InList(overAggregate(in.arg(), keys, calls), in.values(),
          in.negated(), in.type());
      case Expr.Like l -> new Expr.Like(overAggregate(l.arg(), keys, calls), l.pattern(),
          l.escape(), l.negated(), l.type());
    };
  }

  // ---------------------------------------------------------------- expressions

  private int findColumn(String name) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(name)) {
        return i;
      }
    }
    int hit = -1;
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equalsIgnoreCase(name)) {
        if (hit >= 0) {
          return -1;
        }
        hit = i;
      }
    }
    return hit;
  }

  private Expr bindIdentifier(SqlIdentifier id) {
    List<String> parts = id.names;
    String name = parts.get(parts.size() - 1);
    if (parts.size() > 1) {
      String qualifier = String.join(".", parts.subList(0, parts.size() - 1));
      if (!qualifiers.contains(qualifier)) {
        throw invalid("column " + String.join(".", parts) + " not found: no table " + qualifier
            + " in FROM", id);
      }
    }
    int index = findColumn(name);
    if (index < 0) {
      throw invalid("column " + name + " not found", id);
    }
    return columnRef(index, id);
  }

  private Expr requireBoolean(Expr e, SqlNode at, String clause) {
    Expr b = coerceNull(e, SqlType.of(Kind.BOOL, true));
    if (b.type().kind() != Kind.BOOL) {
      throw invalid(clause + " must be a boolean expression, got " + b.type() + ": " + at, at);
    }
    return b;
  }

  Expr bindExpr(SqlNode node, boolean allowAggregates) {
    return switch (node) {
      case SqlIdentifier id -> {
        if (id.isStar()) {
          throw invalid("* is only allowed in the select list and count(*)", id);
        }
        yield bindIdentifier(id);
      }
      case SqlLiteral literal -> bindLiteral(literal);
      case SqlCase c -> bindCase(c, allowAggregates);
      case SqlSelect s -> throw unsupportedPlural("subqueries", s);
      case SqlCall call -> bindCall(call, allowAggregates);
      case SqlNodeList list -> throw unsupportedPlural("row values", list);
      case SqlDataTypeSpec spec -> throw invalid("unexpected type " + spec, spec);
      default -> throw unsupported(node.getKind().sql, node);
    };
  }

  private Expr bindCall(SqlCall call, boolean allowAggregates) {
    SqlKind kind = call.getKind();
    switch (kind) {
      case OVER -> throw unsupportedPlural("window functions", call);
      case SELECT, EXISTS, SCALAR_QUERY ->
          throw unsupportedPlural("subqueries", call);
      case AND, OR -> {
        Expr.Op op = kind == SqlKind.AND ? Expr.Op.AND : Expr.Op.OR;
        List<Expr> args = new ArrayList<>();
        for (SqlNode operand : call.getOperandList()) {
          Expr arg = requireBoolean(bindExpr(operand, allowAggregates), operand, kind.sql);
          // Calcite nests a AND b AND c as binary calls; one flat list prunes and pushes better.
          if (arg instanceof Expr.Call c && c.op() == op) {
            args.addAll(c.args());
          } else {
            args.add(arg);
          }
        }
        return new Expr.Call(op, args,
            SqlType.of(Kind.BOOL, args.stream().anyMatch(a -> a.type().nullable())));
      }
      case NOT -> {
        Expr arg = requireBoolean(bindExpr(call.operand(0), allowAggregates), call.operand(0), "NOT");
        return new Expr.Call(Expr.Op.NOT, List.of(arg), arg.type());
      }
      case IS_NULL, IS_NOT_NULL -> {
        Expr arg = bindExpr(call.operand(0), allowAggregates);
        return new Expr.Call(kind == SqlKind.IS_NULL ? Expr.Op.IS_NULL : Expr.Op.IS_NOT_NULL,
            List.of(arg), SqlType.of(Kind.BOOL, false));
      }
      case EQUALS, NOT_EQUALS, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL -> {
        Expr.Op op = switch (kind) {
          case EQUALS -> Expr.Op.EQ;
          case NOT_EQUALS -> Expr.Op.NE;
          case LESS_THAN -> Expr.Op.LT;
          case LESS_THAN_OR_EQUAL -> Expr.Op.LE;
          case GREATER_THAN -> Expr.Op.GT;
          default -> Expr.Op.GE;
        };
        return comparison(op, bindExpr(call.operand(0), allowAggregates),
            bindExpr(call.operand(1), allowAggregates), call);
      }
      case PLUS, MINUS, TIMES, DIVIDE, MOD -> {
        Expr.Op op = switch (kind) {
          case PLUS -> Expr.Op.ADD;
          case MINUS -> Expr.Op.SUB;
          case TIMES -> Expr.Op.MUL;
          case DIVIDE -> Expr.Op.DIV;
          default -> Expr.Op.MOD;
        };
        if (call.operandCount() != 2) {
          throw invalid("MOD takes two arguments: " + call, call);
        }
        return arithmetic(op, bindExpr(call.operand(0), allowAggregates),
            bindExpr(call.operand(1), allowAggregates), call);
      }
      case MINUS_PREFIX -> {
        Expr arg = bindExpr(call.operand(0), allowAggregates);
        if (!arg.type().isNumeric() && arg.type().kind() != Kind.NULL) {
          throw invalid("cannot negate " + arg.type() + " in " + call, call);
        }
        if (arg instanceof Expr.Literal l) {
          return negateLiteral(l, call);
        }
        SqlType type = arg.type().isInteger() ? widerInteger(arg.type(), SqlType.of(Kind.INT32, false))
            .withNullable(arg.type().nullable()) : arg.type();
        return new Expr.Call(Expr.Op.NEG, List.of(arg), type);
      }
      case PLUS_PREFIX -> {
        return bindExpr(call.operand(0), allowAggregates);
      }
      case BETWEEN -> {
        SqlBetweenOperator between = (SqlBetweenOperator) call.getOperator();
        if (between.flag == SqlBetweenOperator.Flag.SYMMETRIC) {
          throw unsupported("BETWEEN SYMMETRIC", call);
        }
        Expr value = bindExpr(call.operand(0), allowAggregates);
        Expr low = comparison(Expr.Op.GE, value, bindExpr(call.operand(1), allowAggregates), call);
        Expr high = comparison(Expr.Op.LE, value, bindExpr(call.operand(2), allowAggregates), call);
        Expr both = new Expr.Call(Expr.Op.AND, List.of(low, high),
            SqlType.of(Kind.BOOL, low.type().nullable() || high.type().nullable()));
        return between.isNegated() ? new Expr.Call(Expr.Op.NOT, List.of(both), both.type()) : both;
      }
      case IN, NOT_IN -> {
        return bindIn(call, kind == SqlKind.NOT_IN, allowAggregates);
      }
      case LIKE -> {
        return bindLike(call, ((SqlLikeOperator) call.getOperator()).isNegated(), allowAggregates);
      }
      case CAST -> {
        Expr arg = bindExpr(call.operand(0), allowAggregates);
        SqlType target = typeOf((SqlDataTypeSpec) call.operand(1)).withNullable(arg.type().nullable());
        checkCastable(arg.type(), target, call);
        return coerce(arg, target, call);
      }
      case COALESCE -> {
        return bindCoalesce(call, allowAggregates);
      }
      case COUNT, SUM, AVG, MIN, MAX, SUM0 -> {
        return bindAggregate(call, call.getOperator().getName(), allowAggregates);
      }
      default -> { }
    }
    String name = SqlParsing.lower(call.getOperator().getName());
    switch (name) {
      case "count", "sum", "avg", "min", "max" -> {
        return bindAggregate(call, name, allowAggregates);
      }
      case "coalesce" -> {
        return bindCoalesce(call, allowAggregates);
      }
      case "mod" -> {
        if (call.operandCount() != 2) {
          throw invalid("mod takes two arguments: " + call, call);
        }
        return arithmetic(Expr.Op.MOD, bindExpr(call.operand(0), allowAggregates),
            bindExpr(call.operand(1), allowAggregates), call);
      }
      default -> { }
    }
    if (call instanceof SqlBasicCall && call.getOperator().getSyntax()
        == org.apache.calcite.sql.SqlSyntax.FUNCTION) {
      throw invalid("function " + name + " not found", call);
    }
    throw unsupported(call.getOperator().getName(), call);
  }

  private Expr bindAggregate(SqlCall call, String name, boolean allowAggregates) {
    if (!allowAggregates) {
      throw invalid("aggregate function " + SqlParsing.lower(name)
          + " is not allowed here (WHERE, GROUP BY or inside another aggregate)", call);
    }
    Expr.AggFn fn = Expr.AggFn.valueOf(name.toUpperCase(java.util.Locale.ROOT));
    boolean distinct = call.getFunctionQuantifier() != null
        && call.getFunctionQuantifier().getValue() == SqlSelectKeyword.DISTINCT;
    if (call.operandCount() != 1) {
      throw invalid(SqlParsing.lower(name) + " takes one argument: " + call, call);
    }
    SqlNode operand = call.operand(0);
    if (operand instanceof SqlIdentifier id && id.isStar()) {
      if (fn != Expr.AggFn.COUNT || distinct) {
        throw invalid("* is only allowed in count(*)", operand);
      }
      return new Expr.Agg(fn, false, null, SqlType.of(Kind.INT64, false));
    }
    Expr arg = bindExpr(operand, false);
    SqlType in = arg.type();
    SqlType result = switch (fn) {
      case COUNT -> SqlType.of(Kind.INT64, false);
      case SUM -> {
        if (in.isInteger() || in.kind() == Kind.NULL) {
          arg = coerceNull(arg, SqlType.of(Kind.INT64, true));
          yield SqlType.of(Kind.INT64, true);
        }
        if (in.isFloat()) {
          yield SqlType.of(Kind.FLOAT64, true);
        }
        if (in.kind() == Kind.DECIMAL) {
          yield SqlType.decimal(SqlType.MAX_DECIMAL_PRECISION, in.scale(), true);
        }
        throw invalid("cannot sum " + in + " values: " + call, call);
      }
      case AVG -> {
        if (in.isInteger() || in.isFloat() || in.kind() == Kind.NULL) {
          arg = coerceNull(arg, SqlType.of(Kind.FLOAT64, true));
          yield SqlType.of(Kind.FLOAT64, true);
        }
        if (in.kind() == Kind.DECIMAL) {
          yield SqlType.decimal(SqlType.MAX_DECIMAL_PRECISION, Math.max(in.scale(), 6), true);
        }
        throw invalid("cannot average " + in + " values: " + call, call);
      }
      case MIN, MAX, SINGLE_VALUE -> {
        if (in.kind() == Kind.NULL) {
          throw invalid("cannot compute " + SqlParsing.lower(name) + " of NULL: " + call, call);
        }
        yield in.withNullable(true);
      }
    };
    return new Expr.Agg(fn, distinct, arg, result);
  }

  private Expr bindIn(SqlCall call, boolean negated, boolean allowAggregates) {
    Expr value = bindExpr(call.operand(0), allowAggregates);
    SqlNode listNode = call.operand(1);
    if (!(listNode instanceof SqlNodeList list)) {
      throw unsupportedPlural("subqueries", listNode);
    }
    List<Expr> items = new ArrayList<>();
    SqlType common = value.type();
    for (SqlNode item : list) {
      Expr e = bindExpr(item, false);
      if (!(e instanceof Expr.Literal)) {
        throw unsupported("IN with non-constant values", item);
      }
      Expr.Literal exact = exactly(e, value.type());
      e = exact != null ? exact : e;
      items.add(e);
      common = commonType(common, e, value, call);
    }
    SqlType target = common;
    Expr arg = coerce(value, target.withNullable(value.type().nullable()), call);
    List<Expr.Literal> literals = new ArrayList<>();
    boolean anyNull = false;
    for (Expr item : items) {
      Expr.Literal l = (Expr.Literal) coerce(item, target.withNullable(item.type().nullable()), call);
      anyNull |= l.value() == null;
      literals.add(l);
    }
    return new Expr.InList(arg, literals, negated, SqlType.of(Kind.BOOL, arg.type().nullable() || anyNull));
  }

  private Expr bindLike(SqlCall call, boolean negated, boolean allowAggregates) {
    Expr value = coerceNull(bindExpr(call.operand(0), allowAggregates), SqlType.of(Kind.UTF8, true));
    if (value.type().kind() != Kind.UTF8) {
      throw invalid("LIKE needs a VARCHAR operand, got " + value.type() + ": " + call, call);
    }
    if (!(call.operand(1) instanceof SqlCharStringLiteral pattern)) {
      throw unsupported("LIKE with a non-literal pattern", call.operand(1));
    }
    Character escape = null;
    if (call.operandCount() > 2) {
      if (!(call.operand(2) instanceof SqlCharStringLiteral e)
          || e.getValueAs(String.class).length() != 1) {
        throw invalid("ESCAPE must be a single character literal", call.operand(2));
      }
      escape = e.getValueAs(String.class).charAt(0);
    }
    return new Expr.Like(value, pattern.getValueAs(String.class), escape, negated,
        SqlType.of(Kind.BOOL, value.type().nullable()));
  }

  private Expr bindCase(SqlCase c, boolean allowAggregates) {
    Expr operand = c.getValueOperand() == null ? null : bindExpr(c.getValueOperand(), allowAggregates);
    List<Expr> whens = new ArrayList<>();
    for (SqlNode w : c.getWhenOperands()) {
      Expr bound = bindExpr(w, allowAggregates);
      whens.add(operand == null ? requireBoolean(bound, w, "CASE WHEN")
          : comparison(Expr.Op.EQ, operand, bound, w));
    }
    List<Expr> values = new ArrayList<>();
    for (SqlNode t : c.getThenOperands()) {
      values.add(bindExpr(t, allowAggregates));
    }
    values.add(c.getElseOperand() == null ? new Expr.Literal(null, SqlType.of(Kind.NULL, true))
        : bindExpr(c.getElseOperand(), allowAggregates));
    return caseOf(whens, values, c);
  }

  private Expr caseOf(List<Expr> whens, List<Expr> values, SqlNode at) {
    SqlType type = values.get(0).type();
    boolean nullable = false;
    for (Expr v : values) {
      type = commonType(type, v, values.get(0), at);
      nullable |= v.type().nullable();
    }
    if (type.kind() == Kind.NULL) {
      type = SqlType.of(Kind.UTF8, true);
    }
    SqlType result = type.withNullable(nullable);
    List<Expr> cast = values.stream().map(v -> coerce(v, result.withNullable(v.type().nullable()), at)).toList();
    return new Expr.Case(whens, cast.subList(0, whens.size()), cast.get(whens.size()), result);
  }

  private Expr bindCoalesce(SqlCall call, boolean allowAggregates) {
    if (call.operandCount() == 0) {
      throw invalid("coalesce needs at least one argument", call);
    }
    List<Expr> args = new ArrayList<>();
    for (SqlNode operand : call.getOperandList()) {
      args.add(bindExpr(operand, allowAggregates));
    }
    List<Expr> whens = new ArrayList<>();
    for (int i = 0; i < args.size() - 1; i++) {
      whens.add(new Expr.Call(Expr.Op.IS_NOT_NULL, List.of(args.get(i)), SqlType.of(Kind.BOOL, false)));
    }
    Expr result = caseOf(whens, args, call);
    boolean nullable = args.stream().allMatch(a -> a.type().nullable());
    if (result instanceof Expr.Case c && !nullable) {
      return new Expr.Case(c.whens(), c.thens(), c.otherwise(), c.type().withNullable(false));
    }
    return result;
  }

  // ---------------------------------------------------------------- literals and types

  private Expr bindLiteral(SqlLiteral literal) {
    return switch (literal) {
      case SqlNumericLiteral n -> {
        BigDecimal v = n.getValueAs(BigDecimal.class);
        if (!n.isExact()) {
          yield new Expr.Literal(v.doubleValue(), SqlType.of(Kind.FLOAT64, false));
        }
        if (v.scale() <= 0) {
          try {
            long l = v.longValueExact();
            Kind kind = l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE ? Kind.INT32 : Kind.INT64;
            yield new Expr.Literal(l, SqlType.of(kind, false));
          } catch (ArithmeticException e) {
            // larger than BIGINT: a decimal literal
          }
          v = v.setScale(0);
        }
        if (v.precision() > SqlType.MAX_DECIMAL_PRECISION) {
          throw invalid("numeric literal " + literal + " has more than 38 digits", literal);
        }
        yield new Expr.Literal(v, SqlType.decimal(Math.max(v.precision(), v.scale()), v.scale(), false));
      }
      case SqlUnknownLiteral u -> typedLiteral(u.tag, u.getValue(), u);
      case SqlCharStringLiteral s -> new Expr.Literal(s.getValueAs(String.class), SqlType.of(Kind.UTF8, false));
      case SqlDateLiteral d ->
          new Expr.Literal((long) d.getValueAs(DateString.class).getDaysSinceEpoch(), SqlType.of(Kind.DATE, false));
      case SqlTimestampLiteral t -> new Expr.Literal(
          parseTimestamp(t.getValueAs(TimestampString.class).toString(), t), SqlType.of(Kind.TIMESTAMP, false));
      default -> {
        SqlTypeName type = literal.getTypeName();
        if (type == SqlTypeName.NULL || literal.getValue() == null) {
          yield new Expr.Literal(null, SqlType.of(Kind.NULL, true));
        }
        if (type == SqlTypeName.BOOLEAN) {
          yield new Expr.Literal(literal.booleanValue(), SqlType.of(Kind.BOOL, false));
        }
        if (type == SqlTypeName.SYMBOL) {
          throw unsupported(String.valueOf(literal), literal);
        }
        throw unsupportedPlural(type.getName() + " literals", literal);
      }
    };
  }

  /** {@code DATE '...'} and {@code TIMESTAMP '...'}, which Calcite leaves untyped until validation. */
  private static Expr typedLiteral(String tag, String text, SqlNode at) {
    String type = tag.toUpperCase(java.util.Locale.ROOT);
    Kind kind = switch (type) {
      case "DATE" -> Kind.DATE;
      case "TIMESTAMP" -> Kind.TIMESTAMP;
      default -> throw unsupportedPlural(type + " literals", at);
    };
    Expr.Literal lit = new Expr.Literal(text, SqlType.of(Kind.UTF8, false));
    return fold(new Expr.Cast(lit, SqlType.of(kind, false)), at);
  }

  private static long parseTimestamp(String text, SqlNode at) {
    Expr.Literal lit = new Expr.Literal(text, SqlType.of(Kind.UTF8, false));
    return (Long) fold(new Expr.Cast(lit, SqlType.of(Kind.TIMESTAMP, false)), at).value();
  }

  private static SqlType typeOf(SqlDataTypeSpec spec) {
    if (!(spec.getTypeNameSpec() instanceof SqlBasicTypeNameSpec basic)) {
      throw unsupported("type " + spec, spec);
    }
    String name = basic.getTypeName().getSimple().toUpperCase(java.util.Locale.ROOT);
    return switch (name) {
      case "BOOLEAN" -> SqlType.of(Kind.BOOL, true);
      case "TINYINT" -> SqlType.of(Kind.INT8, true);
      case "SMALLINT" -> SqlType.of(Kind.INT16, true);
      case "INTEGER", "INT" -> SqlType.of(Kind.INT32, true);
      case "BIGINT" -> SqlType.of(Kind.INT64, true);
      case "REAL" -> SqlType.of(Kind.FLOAT32, true);
      case "FLOAT", "DOUBLE" -> SqlType.of(Kind.FLOAT64, true);
      case "DECIMAL", "NUMERIC", "DEC" -> {
        int precision = basic.getPrecision() < 0 ? SqlType.MAX_DECIMAL_PRECISION : basic.getPrecision();
        int scale = basic.getScale() < 0 ? 0 : basic.getScale();
        if (precision < 1 || precision > SqlType.MAX_DECIMAL_PRECISION || scale > precision) {
          throw invalid("invalid DECIMAL(" + precision + "," + scale + ")", spec);
        }
        yield SqlType.decimal(precision, scale, true);
      }
      case "VARCHAR", "CHAR", "CHARACTER", "STRING", "TEXT" -> SqlType.of(Kind.UTF8, true);
      case "DATE" -> SqlType.of(Kind.DATE, true);
      case "TIMESTAMP" -> SqlType.of(Kind.TIMESTAMP, true);
      default -> throw unsupported("type " + name, spec);
    };
  }

  private static void checkCastable(SqlType from, SqlType to, SqlNode at) {
    Kind f = from.kind();
    Kind t = to.kind();
    boolean ok = f == Kind.NULL || f == t || t == Kind.UTF8 || f == Kind.UTF8
        || (from.isNumeric() && to.isNumeric())
        || (f == Kind.BOOL && to.isInteger()) || (from.isInteger() && t == Kind.BOOL)
        || (f == Kind.DATE && t == Kind.TIMESTAMP) || (f == Kind.TIMESTAMP && t == Kind.DATE);
    if (!ok) {
      throw invalid("cannot cast " + from + " to " + to + ": " + at, at);
    }
  }

  /** {@code e} as {@code type}: unchanged, a folded literal, or a cast. */
  private static Expr coerce(Expr e, SqlType type, SqlNode at) {
    if (sameType(e.type(), type)) {
      return e.type().nullable() == type.nullable() || !(e instanceof Expr.Literal) ? e
          : new Expr.Literal(((Expr.Literal) e).value(), type);
    }
    Expr cast = new Expr.Cast(e, type);
    return e instanceof Expr.Literal ? fold(cast, at) : cast;
  }

  private static boolean sameType(SqlType a, SqlType b) {
    return a.kind() == b.kind() && a.precision() == b.precision() && a.scale() == b.scale();
  }

  /** A NULL-typed expression becomes {@code type}; any other expression is unchanged. */
  private static Expr coerceNull(Expr e, SqlType type) {
    return e.type().kind() == Kind.NULL ? coerce(e, type, null) : e;
  }

  /** Evaluates a constant expression now, on a batch of one row and no columns. */
  private static Expr.Literal fold(Expr constant, SqlNode at) {
    try {
      Col col = Kernel.compile(constant).eval(new Batch(null, null, 1));
      return new Expr.Literal(col.get(0), constant.type().withNullable(col.get(0) == null));
    } catch (ExecutionException e) {
      throw invalid(e.getMessage() + (at == null ? "" : " in " + at), at);
    }
  }

  private static Expr negateLiteral(Expr.Literal l, SqlNode at) {
    Object v = l.value();
    return switch (v) {
      case null -> l;
      case Long x when x == Long.MIN_VALUE -> throw invalid("BIGINT out of range: " + at, at);
      case Long x -> new Expr.Literal(-x, x == -(long) Integer.MIN_VALUE
          ? SqlType.of(Kind.INT32, false) : l.type());
      case Double x -> new Expr.Literal(-x, l.type());
      case BigDecimal x -> new Expr.Literal(x.negate(), l.type());
      default -> throw invalid("cannot negate " + l.type() + ": " + at, at);
    };
  }

  private static int integerDigits(SqlType t) {
    return switch (t.kind()) {
      case INT8 -> 3;
      case INT16 -> 5;
      case INT32 -> 10;
      case INT64 -> 19;
      case DECIMAL -> t.precision() - t.scale();
      default -> 0;
    };
  }

  private static SqlType asDecimal(SqlType t) {
    return t.kind() == Kind.DECIMAL ? t : SqlType.decimal(integerDigits(t), 0, t.nullable());
  }

  private static SqlType widerInteger(SqlType a, SqlType b) {
    return a.kind().ordinal() >= b.kind().ordinal() ? a : b;
  }

  /**
   * The type two operands are compared (or unified) in. A string literal next to a date,
   * timestamp, number or boolean takes the other side's type ({@code day = '2024-01-01'}).
   */
  private static SqlType commonType(SqlType a, Expr bExpr, Expr aExpr, SqlNode at) {
    SqlType b = bExpr.type();
    Kind ka = a.kind();
    Kind kb = b.kind();
    if (ka == Kind.NULL) {
      return b;
    }
    if (kb == Kind.NULL || sameType(a, b)) {
      return a;
    }
    if (a.isInteger() && b.isInteger()) {
      return widerInteger(a, b);
    }
    if (a.isNumeric() && b.isNumeric()) {
      if (a.isFloat() || b.isFloat()) {
        return ka == Kind.FLOAT32 && kb == Kind.FLOAT32 ? a : SqlType.of(Kind.FLOAT64, true);
      }
      SqlType da = asDecimal(a);
      SqlType db = asDecimal(b);
      int scale = Math.max(da.scale(), db.scale());
      int digits = Math.max(da.precision() - da.scale(), db.precision() - db.scale());
      return SqlType.decimal(Math.min(SqlType.MAX_DECIMAL_PRECISION, digits + scale), scale, true);
    }
    if ((ka == Kind.DATE && kb == Kind.TIMESTAMP) || (ka == Kind.TIMESTAMP && kb == Kind.DATE)) {
      return SqlType.of(Kind.TIMESTAMP, true);
    }
    if (kb == Kind.UTF8 && bExpr instanceof Expr.Literal && ka != Kind.UTF8) {
      return a;
    }
    if (ka == Kind.UTF8 && aExpr instanceof Expr.Literal && kb != Kind.UTF8) {
      return b;
    }
    throw invalid("cannot compare " + a + " with " + b + " in " + at, at);
  }

  /**
   * {@code literal} in the type of the other operand when that loses nothing, so that {@code
   * reward > 2} compares in the column's own type and stays pushable; otherwise null.
   */
  private static Expr.Literal exactly(Expr literal, SqlType target) {
    if (!(literal instanceof Expr.Literal l) || l.value() == null || !target.isNumeric()
        || !l.type().isNumeric()) {
      return null;
    }
    try {
      Expr.Literal converted = fold(new Expr.Cast(l, target.withNullable(false)), null);
      Expr.Literal back = fold(new Expr.Cast(converted, l.type()), null);
      boolean same = back.value() instanceof BigDecimal b
          ? b.compareTo((BigDecimal) l.value()) == 0 : back.value().equals(l.value());
      return same ? converted : null;
    } catch (SqlException e) {
      return null;
    }
  }

  private Expr comparison(Expr.Op op, Expr left, Expr right, SqlNode at) {
    if (!(left instanceof Expr.Literal) && exactly(right, left.type()) != null) {
      right = exactly(right, left.type());
    } else if (!(right instanceof Expr.Literal) && exactly(left, right.type()) != null) {
      left = exactly(left, right.type());
    }
    SqlType common = commonType(left.type(), right, left, at);
    if (common.kind() == Kind.NULL) {
      common = SqlType.of(Kind.BOOL, true);
    }
    SqlType target = common;
    Expr l = coerce(left, target.withNullable(left.type().nullable()), at);
    Expr r = coerce(right, target.withNullable(right.type().nullable()), at);
    return new Expr.Call(op, List.of(l, r),
        SqlType.of(Kind.BOOL, l.type().nullable() || r.type().nullable()));
  }

  private Expr arithmetic(Expr.Op op, Expr left, Expr right, SqlNode at) {
    SqlType a = left.type();
    SqlType b = right.type();
    if (a.kind() == Kind.NULL) {
      a = b.kind() == Kind.NULL ? SqlType.of(Kind.INT32, true) : b;
      left = coerce(left, a.withNullable(true), at);
    }
    if (b.kind() == Kind.NULL) {
      b = a;
      right = coerce(right, b.withNullable(true), at);
    }
    if (!a.isNumeric() || !b.isNumeric()) {
      throw invalid("cannot apply " + op.symbol + " to " + a + " and " + b + " in " + at, at);
    }
    boolean nullable = a.nullable() || b.nullable();
    SqlType result;
    if (a.isInteger() && b.isInteger()) {
      result = widerInteger(widerInteger(a, b), SqlType.of(Kind.INT32, false)).withNullable(nullable);
      return new Expr.Call(op, List.of(left, right), result);
    }
    if (a.isFloat() || b.isFloat()) {
      result = SqlType.of(Kind.FLOAT64, nullable);
    } else {
      SqlType da = asDecimal(a);
      SqlType db = asDecimal(b);
      int p1 = da.precision();
      int s1 = da.scale();
      int p2 = db.precision();
      int s2 = db.scale();
      int scale;
      int precision;
      switch (op) {
        case MUL -> {
          scale = s1 + s2;
          precision = p1 + p2;
        }
        case DIV -> {
          scale = Math.max(6, Math.max(s1, s2));
          precision = p1 - s1 + s2 + scale;
        }
        case MOD -> {
          scale = Math.max(s1, s2);
          precision = Math.max(p1 - s1, p2 - s2) + scale;
        }
        default -> {
          scale = Math.max(s1, s2);
          precision = Math.max(p1 - s1, p2 - s2) + scale + 1;
        }
      }
      precision = Math.min(SqlType.MAX_DECIMAL_PRECISION, precision);
      scale = Math.min(scale, precision);
      result = SqlType.decimal(precision, scale, nullable);
    }
    SqlType operandType = result.kind() == Kind.DECIMAL ? null : result;
    Expr l = coerce(left, operandType != null ? operandType.withNullable(a.nullable()) : asDecimal(a), at);
    Expr r = coerce(right, operandType != null ? operandType.withNullable(b.nullable()) : asDecimal(b), at);
    return new Expr.Call(op, List.of(l, r), result);
  }
}
