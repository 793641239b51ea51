package dev.lake.exec.fn;

import dev.lake.exec.SqlType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The functions SQL can call, each defined once ({@link ScalarFunction}): the validator's operator
 * table is built from it, and the planner resolves calls and compiles their kernels through it.
 * Adding a function is adding one definition to a family class ({@link StringFunctions}, {@link
 * MathFunctions}, ...) and one line to {@link #standard()}. Immutable and thread-safe.
 */
public final class FunctionRegistry {

  private static final FunctionRegistry STANDARD = new Builder()
      .addAll(StringFunctions.ALL)
      .addAll(RegexFunctions.ALL)
      .addAll(MathFunctions.ALL)
      .addAll(ComparisonFunctions.ALL)
      .addAggregates(CoreAggregates.ALL)
      .addAggregates(StatisticsAggregates.ALL)
      .addAggregates(BooleanAggregates.ALL)
      .addAggregates(OrderedAggregates.ALL)
      .addAggregates(ApproximateAggregates.ALL)
      .addAll(DateTimeFunctions.ALL)
      .addAll(ListFunctions.ALL)
      .addAll(VectorFunctions.ALL)
      .build();

  /** A call matched to one of its function's signatures. */
  public record Resolution(ScalarFunction function, Signature signature, Binding binding, SqlType result) {}

  /** An aggregate call matched to one of its function's signatures. */
  public record AggregateResolution(AggregateFunction function, Signature signature, Binding binding,
      SqlType result) {}

  private final Map<String, ScalarFunction> byName;
  private final List<ScalarFunction> functions;
  private final Map<String, AggregateFunction> aggregatesByName;
  private final List<AggregateFunction> aggregates;

  private FunctionRegistry(Map<String, ScalarFunction> byName, List<ScalarFunction> functions,
      Map<String, AggregateFunction> aggregatesByName, List<AggregateFunction> aggregates) {
    this.byName = Map.copyOf(byName);
    this.functions = List.copyOf(functions);
    this.aggregatesByName = Map.copyOf(aggregatesByName);
    this.aggregates = List.copyOf(aggregates);
  }

  /** The aggregate function called {@code name} (any case, any of its aliases). */
  public Optional<AggregateFunction> lookupAggregate(String name) {
    return Optional.ofNullable(aggregatesByName.get(name.toLowerCase(Locale.ROOT)));
  }

  /** Every aggregate function, in registration order. */
  public List<AggregateFunction> aggregates() {
    return aggregates;
  }

  /** Matches an aggregate call to its function's first signature that takes its arguments. */
  public static Optional<AggregateResolution> resolve(AggregateFunction function, Binding args) {
    return match(function, args).map(b -> new AggregateResolution(function, b.signature(), b.binding(),
        function.resultType(b.binding())));
  }

  private record Matched(Signature signature, Binding binding) {}

  private static Optional<Matched> match(RegisteredFunction function, Binding args) {
    for (Signature s : function.signatures()) {
      if (!s.takes(args.size())) {
        continue;
      }
      List<SqlType> converted = new ArrayList<>(args.size());
      boolean ok = true;
      for (int i = 0; i < args.size() && ok; i++) {
        SqlType t = s.param(i).accept(args.type(i));
        ok = t != null;
        converted.add(t);
      }
      if (ok && unifySame(s, converted) && unifyElement(s, converted)) {
        return Optional.of(new Matched(s, args.withTypes(converted)));
      }
    }
    return Optional.empty();
  }

  /** Every function lake ships. */
  public static FunctionRegistry standard() {
    return STANDARD;
  }

  /** The function called {@code name} (any case, any of its aliases). */
  public Optional<ScalarFunction> lookup(String name) {
    return Optional.ofNullable(byName.get(name.toLowerCase(Locale.ROOT)));
  }

  /** Every function, in registration order. */
  public List<ScalarFunction> functions() {
    return functions;
  }

  /**
   * Matches a call of {@code function} with arguments of {@code args}' types to its first
   * signature that takes them, converting each argument to what its parameter takes; empty when
   * none does.
   */
  public static Optional<Resolution> resolve(ScalarFunction function, Binding args) {
    return match(function, args).map(m -> new Resolution(function, m.signature(), m.binding(),
        function.resultType(m.binding())));
  }

  /** Converts the arguments bound to {@link Param#SAME} to their common type; false if they have none. */
  private static boolean unifySame(Signature s, List<SqlType> types) {
    SqlType common = null;
    for (int i = 0; i < types.size(); i++) {
      if (s.param(i) == Param.SAME) {
        common = common == null ? types.get(i) : common(common, types.get(i));
        if (common == null) {
          return false;
        }
      }
    }
    if (common == null) {
      return true;
    }
    if (common.kind() == SqlType.Kind.NULL) {
      common = SqlType.of(SqlType.Kind.UTF8, true);
    }
    for (int i = 0; i < types.size(); i++) {
      if (s.param(i) == Param.SAME) {
        types.set(i, common.withNullable(types.get(i).nullable()));
      }
    }
    return true;
  }

  /**
   * Converts an argument bound to {@link Param#ELEMENT} to the type it is compared with the
   * {@link Param#LIST} argument's elements in; false if there is none.
   */
  private static boolean unifyElement(Signature s, List<SqlType> types) {
    SqlType element = null;
    for (int i = 0; i < types.size(); i++) {
      if (s.param(i) == Param.LIST) {
        element = types.get(i).element();
      }
    }
    for (int i = 0; i < types.size(); i++) {
      if (s.param(i) == Param.ELEMENT && element != null) {
        SqlType common = common(element, types.get(i));
        if (common == null) {
          return false;
        }
        types.set(i, common.kind() == SqlType.Kind.NULL ? element.withNullable(true)
            : common.withNullable(types.get(i).nullable()));
      }
    }
    return true;
  }

  /** The type two values are compared in, PostgreSQL's rules; null if there is none. */
  static SqlType common(SqlType a, SqlType b) {
    if (a.kind() == SqlType.Kind.NULL) {
      return b;
    }
    if (b.kind() == SqlType.Kind.NULL) {
      return a;
    }
    if (a.kind() == b.kind() && a.kind() != SqlType.Kind.DECIMAL) {
      return a;
    }
    if (a.isInteger() && b.isInteger()) {
      return SqlType.of(SqlType.Kind.INT64, true);
    }
    if (a.isNumeric() && b.isNumeric()) {
      if (a.isFloat() || b.isFloat()) {
        return SqlType.of(SqlType.Kind.FLOAT64, true);
      }
      int scale = Math.max(a.scale(), b.scale());
      int integral = Math.max(digits(a) - a.scale(), digits(b) - b.scale());
      return SqlType.decimal(Math.min(SqlType.MAX_DECIMAL_PRECISION, integral + scale), scale, true);
    }
    boolean aTime = a.kind() == SqlType.Kind.DATE || a.kind() == SqlType.Kind.TIMESTAMP;
    boolean bTime = b.kind() == SqlType.Kind.DATE || b.kind() == SqlType.Kind.TIMESTAMP;
    return aTime && bTime ? SqlType.of(SqlType.Kind.TIMESTAMP, true) : null;
  }

  /** Decimal digits a value of a numeric type may need. */
  private static int digits(SqlType t) {
    return switch (t.kind()) {
      case DECIMAL -> t.precision();
      case INT8 -> 3;
      case INT16 -> 5;
      case INT32 -> 10;
      default -> 19;
    };
  }

  /** Every form of {@code function}, for a message: {@code lpad(VARCHAR, BIGINT), lpad(VARCHAR, BIGINT, VARCHAR)}. */
  public static String describeSignatures(RegisteredFunction function) {
    return String.join(", ", function.signatures().stream().map(s -> s.describe(function.name())).toList());
  }

  /**
   * Up to three names of the registry, and of {@code others} (functions defined elsewhere), closest
   * to {@code name} by edit distance: those within a third of its length (at least 2 edits), the
   * closest first.
   */
  public List<String> closestNames(String name, Collection<String> others) {
    String wanted = name.toLowerCase(Locale.ROOT);
    TreeSet<String> candidates = new TreeSet<>(byName.keySet());
    candidates.addAll(aggregatesByName.keySet());
    others.forEach(o -> candidates.add(o.toLowerCase(Locale.ROOT)));
    int limit = Math.max(2, wanted.length() / 3);
    record Scored(String name, int distance) {}
    List<Scored> scored = new ArrayList<>();
    for (String c : candidates) {
      int d = editDistance(wanted, c);
      if (d <= limit || c.startsWith(wanted) && wanted.length() >= 3) {
        scored.add(new Scored(c, d));
      }
    }
    scored.sort(Comparator.comparingInt(Scored::distance).thenComparing(Scored::name));
    return scored.stream().limit(3).map(Scored::name).toList();
  }

  /** Levenshtein distance: insertions, deletions and substitutions of one character each. */
  static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] t = previous;
      previous = current;
      current = t;
    }
    return previous[b.length()];
  }

  /** Collects functions; two with one name (or alias) are a programming error. */
  public static final class Builder {
    private final Map<String, ScalarFunction> byName = new LinkedHashMap<>();
    private final List<ScalarFunction> functions = new ArrayList<>();
    private final Map<String, AggregateFunction> aggregatesByName = new LinkedHashMap<>();
    private final List<AggregateFunction> aggregates = new ArrayList<>();

    public Builder add(ScalarFunction f) {
      functions.add(f);
      List<String> names = new ArrayList<>(f.aliases());
      names.add(f.name());
      for (String n : names) {
        if (aggregatesByName.containsKey(n) || byName.putIfAbsent(n, f) != null) {
          throw new IllegalStateException("two functions are called " + n);
        }
      }
      return this;
    }

    public Builder addAggregate(AggregateFunction f) {
      aggregates.add(f);
      List<String> names = new ArrayList<>(f.aliases());
      names.add(f.name());
      for (String n : names) {
        if (byName.containsKey(n) || aggregatesByName.putIfAbsent(n, f) != null) {
          throw new IllegalStateException("two functions are called " + n);
        }
      }
      return this;
    }

    public Builder addAggregates(List<? extends AggregateFunction> fs) {
      fs.forEach(this::addAggregate);
      return this;
    }

    public Builder addAll(List<? extends ScalarFunction> fs) {
      fs.forEach(this::add);
      return this;
    }

    public FunctionRegistry build() {
      return new FunctionRegistry(byName, functions, aggregatesByName, aggregates);
    }
  }
}
