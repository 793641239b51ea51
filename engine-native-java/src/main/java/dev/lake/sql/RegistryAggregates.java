package dev.lake.sql;

import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Expr;
import dev.lake.exec.fn.AggregateFunction;
import dev.lake.exec.fn.AggregateSpec;
import dev.lake.exec.fn.Binding;
import dev.lake.exec.fn.FunctionRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlUnresolvedFunction;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;

/**
 * The SQL side of the registry's aggregates before validation: Calcite's parser binds some of
 * their names to its own operators ({@code percentile_cont}, {@code stddev_pop}, ...), which
 * become the registry's; and an ordered-set aggregate's ordering key is handed to it as one more
 * argument ({@code percentile_cont(f) WITHIN GROUP (ORDER BY x)} is validated as {@code
 * percentile_cont(f, x)} with the same ordering), so the registry checks the key's type and the
 * result type can depend on it.
 */
final class RegistryAggregates {
  private RegistryAggregates() {}

  /** The ordered-set aggregates, whose only value is their WITHIN GROUP key. */
  private static boolean orderedSet(SqlOperator op) {
    String name = op.getName().toLowerCase(Locale.ROOT);
    return name.equals("percentile_cont") || name.equals("percentile_disc");
  }

  /** The call of the registry's aggregate {@code call} spells, or null when it is none. */
  static SqlNode replacement(SqlCall call) {
    SqlOperator op = call.getOperator();
    if (call.getKind() == SqlKind.WITHIN_GROUP && call.operand(0) instanceof SqlCall agg
        && agg.getOperator() instanceof FunctionOperators.AggregateOperator && orderedSet(agg.getOperator())
        && agg.operandCount() == 1 && call.operand(1) instanceof SqlNodeList order && order.size() == 1) {
      List<SqlNode> operands = new ArrayList<>(agg.getOperandList());
      operands.add(key(order.get(0)));
      SqlCall withKey = agg.getOperator().createCall(agg.getFunctionQuantifier(), agg.getParserPosition(),
          operands.toArray(SqlNode[]::new));
      return SqlStdOperatorTable.WITHIN_GROUP.createCall(call.getParserPosition(), withKey, order);
    }
    FunctionOperators.AggregateOperator registry = op instanceof FunctionOperators.AggregateOperator a ? a
        : op.isAggregator() || op instanceof SqlUnresolvedFunction ? FunctionOperators.aggregateOperator(op.getName())
        : null;
    if (registry == null) {
      return null;
    }
    // The parser keeps an ORDER BY inside the call (string_agg(s, ',' ORDER BY t)) as a last
    // operand; it is the call's WITHIN GROUP ordering.
    List<SqlNode> operands = new ArrayList<>(call.getOperandList());
    SqlNodeList order = !operands.isEmpty() && operands.getLast() instanceof SqlNodeList l ? l : null;
    if (order != null) {
      operands.removeLast();
    } else if (registry == op) {
      return null;
    }
    SqlCall replaced = registry.createCall(call.getFunctionQuantifier(), call.getParserPosition(),
        operands.toArray(SqlNode[]::new));
    return order == null ? replaced : SqlStdOperatorTable.WITHIN_GROUP.createCall(call.getParserPosition(), replaced, order);
  }

  /** The expression an ORDER BY item sorts by, without its DESC and NULLS FIRST/LAST. */
  private static SqlNode key(SqlNode item) {
    while (item instanceof SqlCall c && (c.getKind() == SqlKind.DESCENDING || c.getKind() == SqlKind.NULLS_FIRST
        || c.getKind() == SqlKind.NULLS_LAST)) {
      item = c.operand(0);
    }
    return item;
  }

  /**
   * The engine's call of registry aggregate {@code function} for Calcite's {@code call}: {@code
   * input} gives the aggregate's input columns as expressions, {@code filter} is the FILTER
   * condition or null. Arguments are converted to the matched signature; constant arguments are
   * checked by the function (a percentile's fraction).
   *
   * @throws SqlException INVALID when the arguments fit no signature or a constant is refused
   */
  static Expr.Agg translate(AggregateFunction function, AggregateCall call, IntFunction<Expr> input, Expr filter) {
    List<Expr> args = new ArrayList<>();
    for (int a : call.getArgList()) {
      args.add(input.apply(a));
    }
    Binding binding = Binding.of(args.stream().map(Expr::type).toList());
    for (int i = 0; i < args.size(); i++) {
      if (args.get(i) instanceof Expr.Literal l) {
        binding = binding.withConstant(i, l.value());
      }
    }
    FunctionRegistry.AggregateResolution r = FunctionRegistry.resolve(function, binding).orElseThrow(() ->
        new SqlException(SqlException.Kind.INVALID, "function " + function.name() + " cannot take "
            + args.stream().map(e -> e.type().toString()).toList() + "; it takes "
            + FunctionRegistry.describeSignatures(function)));
    try {
      function.check(r.binding());
    } catch (IllegalArgumentException e) {
      throw new SqlException(SqlException.Kind.INVALID, e.getMessage());
    }
    List<Expr> inputs = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      SqlType to = r.binding().type(i);
      Expr a = args.get(i);
      inputs.add(a.type().equals(to) ? a : RexToExpr.cast(a, to));
    }
    List<AggregateSpec.SortKey> order = new ArrayList<>();
    for (RelFieldCollation c : call.getCollation().getFieldCollations()) {
      Expr key = input.apply(c.getFieldIndex());
      boolean descending = c.getDirection().isDescending();
      boolean nullsFirst = switch (c.nullDirection) {
        case FIRST -> true;
        case LAST -> false;
        default -> descending;
      };
      order.add(new AggregateSpec.SortKey(key.type(), descending, nullsFirst));
      inputs.add(key);
    }
    AggregateSpec spec = new AggregateSpec(function, r.binding(), r.result(), call.isDistinct(), order);
    return new Expr.Agg(Expr.AggFn.REGISTERED, call.isDistinct(), inputs.isEmpty() ? null : inputs.getFirst(),
        r.result(), filter, new Expr.Registered(spec, inputs));
  }

  /** The output field of a list-valued aggregate ({@code array_agg}) of {@code element}s. */
  static Field listField(String name, SqlType element) {
    return new Field(name, FieldType.nullable(ArrowType.List.INSTANCE),
        List.of(element.withNullable(true).field(ListVector.DATA_VECTOR_NAME)));
  }
}
