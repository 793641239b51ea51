package dev.lake.exec.expr;

import dev.lake.exec.SqlType;
import dev.lake.exec.fn.Binding;
import dev.lake.exec.fn.ScalarFunction;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * A bound, fully typed scalar expression: every name is resolved to a column index of the input
 * it is evaluated on and every operand already has the type its operator needs (the binder
 * inserts casts). Records, so structurally equal expressions are equal (GROUP BY matching).
 */
public sealed interface Expr {

  SqlType type();

  /** Rebuilds this tree bottom-up, replacing each node by {@code f(node)}. */
  default Expr transform(UnaryOperator<Expr> f) {
    Expr rebuilt = switch (this) {
      case Column c -> c;
      case Literal l -> l;
      case Call c -> new Call(c.op(), c.args().stream().map(a -> a.transform(f)).toList(), c.type());
      case Func c -> new Func(c.function(), c.binding(), c.args().stream().map(a -> a.transform(f)).toList(), c.type());
      case Cast c -> new Cast(c.arg().transform(f), c.type());
      case Case c -> new Case(
          c.whens().stream().map(a -> a.transform(f)).toList(),
          c.thens().stream().map(a -> a.transform(f)).toList(),
          c.otherwise().transform(f), c.type());
      case InList in -> new InList(in.arg().transform(f), in.values(), in.negated(), in.type());
      case Like l -> new Like(l.arg().transform(f), l.pattern(), l.escape(), l.negated(), l.type());
      case Agg a -> new Agg(a.fn(), a.distinct(), a.arg() == null ? null : a.arg().transform(f), a.type(),
          a.filter() == null ? null : a.filter().transform(f),
          a.registered() == null ? null : new Registered(a.registered().spec(),
              a.registered().inputs().stream().map(x -> x.transform(f)).toList(), a.registered().phase()));
      case Nested n -> new Nested(n.column(), n.name(), n.path().stream()
          .map(s -> s instanceof Step.Element e ? new Step.Element(e.index().transform(f)) : s).toList(),
          n.result(), n.type());
    };
    return f.apply(rebuilt);
  }

  /** Whether any node of this tree satisfies {@code test}. */
  default boolean anyMatch(java.util.function.Predicate<Expr> test) {
    if (test.test(this)) {
      return true;
    }
    return switch (this) {
      case Column c -> false;
      case Literal l -> false;
      case Call c -> c.args().stream().anyMatch(a -> a.anyMatch(test));
      case Func c -> c.args().stream().anyMatch(a -> a.anyMatch(test));
      case Cast c -> c.arg().anyMatch(test);
      case Case c -> c.whens().stream().anyMatch(a -> a.anyMatch(test))
          || c.thens().stream().anyMatch(a -> a.anyMatch(test)) || c.otherwise().anyMatch(test);
      case InList in -> in.arg().anyMatch(test);
      case Like l -> l.arg().anyMatch(test);
      case Agg a -> a.arg() != null && a.arg().anyMatch(test) || a.filter() != null && a.filter().anyMatch(test)
          || a.registered() != null && a.registered().inputs().stream().anyMatch(x -> x.anyMatch(test));
      case Nested n -> n.path().stream().anyMatch(s -> s instanceof Step.Element e && e.index().anyMatch(test));
    };
  }

  /** Column {@code index} of the input; {@code name} only for messages and pushdown. */
  record Column(int index, String name, SqlType type) implements Expr {}

  /**
   * A constant. Values: {@link Long} for integers, dates (days) and timestamps (micros),
   * {@link Double}, {@link Boolean}, {@link String}, {@link java.math.BigDecimal}; null is NULL.
   */
  record Literal(Object value, SqlType type) implements Expr {}

  enum Op {
    ADD("+"), SUB("-"), MUL("*"), DIV("/"), MOD("%"), NEG("-"),
    EQ("="), NE("<>"), LT("<"), LE("<="), GT(">"), GE(">="),
    AND("AND"), OR("OR"), NOT("NOT"), IS_NULL("IS NULL"), IS_NOT_NULL("IS NOT NULL"),
    /** Fields of a date or timestamp: one long-backed argument, an integer result. */
    EXTRACT_YEAR("EXTRACT(YEAR)"), EXTRACT_MONTH("EXTRACT(MONTH)"), EXTRACT_DAY("EXTRACT(DAY)");

    public final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }

    public boolean isComparison() {
      return ordinal() >= EQ.ordinal() && ordinal() <= GE.ordinal();
    }

    public boolean isArithmetic() {
      return ordinal() <= NEG.ordinal();
    }
  }

  /**
   * An operator application. Arithmetic and comparison operands have one common type (the
   * binder casts), except integer arithmetic, where both are long-backed integers.
   */
  record Call(Op op, List<Expr> args, SqlType type) implements Expr {
    public Call {
      args = List.copyOf(args);
    }
  }

  /**
   * A call of a function of the {@link dev.lake.exec.fn.FunctionRegistry}: {@code args} already
   * have the types of {@code binding} (the planner converted them to the matched signature), and
   * {@code type} is the function's result type for that binding.
   */
  record Func(ScalarFunction function, Binding binding, List<Expr> args, SqlType type) implements Expr {
    public Func {
      args = List.copyOf(args);
    }
  }

  record Cast(Expr arg, SqlType type) implements Expr {}

  /** {@code CASE WHEN whens[i] THEN thens[i] ... ELSE otherwise END}; branches are lazy. */
  record Case(List<Expr> whens, List<Expr> thens, Expr otherwise, SqlType type) implements Expr {
    public Case {
      whens = List.copyOf(whens);
      thens = List.copyOf(thens);
      Objects.requireNonNull(otherwise, "otherwise");
    }
  }

  /** {@code arg [NOT] IN (values)}; values are literals of {@code arg}'s type, possibly NULL. */
  record InList(Expr arg, List<Literal> values, boolean negated, SqlType type) implements Expr {
    public InList {
      values = List.copyOf(values);
    }
  }

  /** {@code arg [NOT] LIKE pattern [ESCAPE escape]} with a constant pattern. */
  record Like(Expr arg, String pattern, Character escape, boolean negated, SqlType type)
      implements Expr {}

  /**
   * {@code SINGLE_VALUE} is a scalar subquery's value: more than one row per group is an error.
   * {@code REGISTERED} is an aggregate of the {@link dev.lake.exec.fn.FunctionRegistry} (its
   * {@link Agg#registered()} says which); the others run the engine's built-in kernels.
   */
  enum AggFn { COUNT, SUM, AVG, MIN, MAX, SINGLE_VALUE, REGISTERED }

  /**
   * An aggregate call; {@code arg} is null for {@code count(*)}. Only valid below an aggregate.
   * {@code filter}, when not null, is the BOOLEAN condition of {@code FILTER (WHERE ...)}: only
   * rows where it is TRUE reach the aggregate. {@code registered} is set exactly when {@code fn}
   * is {@link AggFn#REGISTERED}.
   */
  record Agg(AggFn fn, boolean distinct, Expr arg, SqlType type, Expr filter, Registered registered)
      implements Expr {
    public Agg {
      if ((fn == AggFn.REGISTERED) != (registered != null)) {
        throw new IllegalArgumentException("a registered aggregate, and only it, names its function");
      }
    }

    /** A built-in aggregate without FILTER. */
    public Agg(AggFn fn, boolean distinct, Expr arg, SqlType type) {
      this(fn, distinct, arg, type, null, null);
    }
  }

  /**
   * The call of a registry aggregate: {@code inputs} are its arguments (converted to the
   * binding's types) followed by its ORDER BY keys, in {@code spec}'s order. In a parallel
   * aggregation the same call runs in two phases: {@link Phase#PARTIAL} over each morsel,
   * yielding one BIGINT handle per group to that group's partial state, and {@link Phase#FINAL},
   * whose one input is that handle column and which merges the states it names.
   */
  record Registered(dev.lake.exec.fn.AggregateSpec spec, List<Expr> inputs, Phase phase) {
    public Registered {
      inputs = List.copyOf(inputs);
    }

    /** The call computed in one step over its rows. */
    public Registered(dev.lake.exec.fn.AggregateSpec spec, List<Expr> inputs) {
      this(spec, inputs, Phase.COMPLETE);
    }
  }

  /** Which part of a registry aggregate an aggregation computes (see {@link Registered}). */
  enum Phase { COMPLETE, PARTIAL, FINAL }

  /** One step into a nested value: a struct's field, or a list's element. */
  sealed interface Step {
    /** Field number {@code child} (0-based) of a struct, called {@code name}. */
    record Member(int child, String name) implements Step {}

    /** Element {@code index} (1-based, an integer expression over the input) of a list. */
    record Element(Expr index) implements Step {}
  }

  /** What {@link Nested} returns of the value its path reaches. */
  enum Reach {
    /** The value itself: a scalar, or a struct or list a projection passes through. */
    VALUE,
    /** The number of elements of a list (INTEGER); NULL for a NULL list. */
    CARDINALITY,
    /** Whether the value is NULL (never NULL itself). */
    IS_NULL
  }

  /**
   * A value inside struct or list column {@code column} of the input, a column the engine
   * otherwise only passes through: from the column, each step of {@code path} takes a field or
   * an element. NULL anywhere on the path, or an element index outside {@code 1..length}, makes
   * the value NULL. {@code type} is the scalar type of the result, or {@link SqlType.Kind#NULL}
   * when a projection passes a struct or list value through.
   */
  record Nested(int column, String name, List<Step> path, Reach result, SqlType type) implements Expr {
    public Nested {
      path = List.copyOf(path);
    }

    /** How SQL spells the value, for messages: {@code video.uri}, {@code embedding[1]}. */
    public String describe() {
      StringBuilder out = new StringBuilder(name);
      for (Step step : path) {
        switch (step) {
          case Step.Member m -> out.append('.').append(m.name());
          case Step.Element e -> out.append('[').append(e.index() instanceof Literal l ? l.value() : "?").append(']');
        }
      }
      return out.toString();
    }
  }
}
