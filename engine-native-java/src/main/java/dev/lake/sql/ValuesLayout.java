package dev.lake.sql;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.apache.calcite.sql.dialect.PostgresqlSqlDialect;

/**
 * Where the parameters of an {@code INSERT ... VALUES} stand: each value of each row is either a
 * {@code ?} of its own or a constant expression ({@code VALUES (?, 'lab', ?)}). The constants
 * are computed once per execution by one query of them all ({@link #constantsQuery}); the
 * INSERT itself is validated with its parameters, so their types are checked against the target
 * columns at prepare. Each bound parameter row then gives one table row per VALUES row.
 */
final class ValuesLayout {

  /** {@code slots[r][i]}: the 0-based parameter at value i of row r, or -1 for a constant. */
  private final int[][] slots;
  private final int[] columnOf;
  private final boolean constants;
  /** {@code constantAt[r][i]}: the column of the constants query holding value i of row r. */
  private final int[][] constantAt;
  private final String constantsQuery;

  private ValuesLayout(int[][] slots, int parameters, int[][] constantAt, String constantsQuery) {
    this.slots = slots;
    this.constantAt = constantAt;
    this.constantsQuery = constantsQuery;
    this.columnOf = new int[parameters];
    boolean anyConstant = false;
    for (int[] row : slots) {
      for (int i = 0; i < row.length; i++) {
        if (row[i] < 0) {
          anyConstant = true;
        } else {
          columnOf[row[i]] = i;
        }
      }
    }
    this.constants = anyConstant;
  }

  /**
   * The layout of {@code source}, or null when it is not a VALUES whose parameters each stand
   * alone as a value (a {@code ?} inside an expression, or parameters in a query).
   */
  static ValuesLayout of(SqlNode source) {
    if (source.getKind() != SqlKind.VALUES) {
      return null;
    }
    List<int[]> rows = new ArrayList<>();
    List<int[]> constantAt = new ArrayList<>();
    List<String> constants = new ArrayList<>();
    int parameters = 0;
    for (SqlNode row : ((SqlCall) source).getOperandList()) {
      if (!(row instanceof SqlBasicCall call) || call.getKind() != SqlKind.ROW) {
        return null;
      }
      int[] slots = new int[call.operandCount()];
      int[] at = new int[slots.length];
      for (int i = 0; i < slots.length; i++) {
        at[i] = -1;
        SqlNode value = call.operand(i);
        if (value instanceof SqlDynamicParam param) {
          slots[i] = param.getIndex();
          parameters++;
        } else if (constant(value)) {
          slots[i] = -1;
          at[i] = constants.size();
          constants.add(value.toSqlString(PostgresqlSqlDialect.DEFAULT).getSql()
              + " AS c" + constants.size());
        } else {
          return null;
        }
      }
      rows.add(slots);
      constantAt.add(at);
    }
    return new ValuesLayout(rows.toArray(int[][]::new), parameters,
        constantAt.toArray(int[][]::new),
        constants.isEmpty() ? null : "SELECT " + String.join(", ", constants));
  }

  // No parameter and no column or subquery inside: the same value for every bound row.
  private static boolean constant(SqlNode value) {
    boolean[] variable = {false};
    value.accept(new SqlBasicVisitor<Void>() {
      @Override
      public Void visit(SqlDynamicParam param) {
        variable[0] = true;
        return null;
      }

      @Override
      public Void visit(SqlIdentifier id) {
        variable[0] = true;
        return null;
      }

      @Override
      public Void visit(SqlCall call) {
        if (call.getKind() == SqlKind.SELECT || call.getKind() == SqlKind.SCALAR_QUERY) {
          variable[0] = true;
          return null;
        }
        return super.visit(call);
      }
    });
    return !variable[0];
  }

  int rows() {
    return slots.length;
  }

  /** The parameter at value {@code i} of row {@code r}, or -1 for a constant. */
  int slot(int r, int i) {
    return slots[r][i];
  }

  /** The position in the row (the target column's) of 0-based parameter {@code p}. */
  int columnOf(int p) {
    return columnOf[p];
  }

  /** Whether some value is a constant rather than a parameter. */
  boolean hasConstants() {
    return constants;
  }

  /**
   * One query whose single row holds every constant of the VALUES rows, one column each (see
   * {@link #constantAt}); null when there is none.
   */
  String constantsQuery() {
    return constantsQuery;
  }

  /** The column of {@link #constantsQuery} holding value {@code i} of row {@code r}, a constant. */
  int constantAt(int r, int i) {
    return constantAt[r][i];
  }
}
