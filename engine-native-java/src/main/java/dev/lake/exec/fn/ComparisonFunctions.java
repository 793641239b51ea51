package dev.lake.exec.fn;

import dev.lake.exec.SqlType;
import java.math.BigDecimal;
import java.util.List;

/** {@code greatest} and {@code least}: NULL arguments are ignored; NULL only when all are. */
public final class ComparisonFunctions {
  private ComparisonFunctions() {}

  public static final ScalarFunction GREATEST = extreme("greatest", 1);
  public static final ScalarFunction LEAST = extreme("least", -1);

  static final List<ScalarFunction> ALL = List.of(GREATEST, LEAST);

  private static ScalarFunction extreme(String name, int sign) {
    return Scalar.named(name)
        .takesVariadic(Param.SAME)
        .nullable(args -> args.type(0).withNullable(args.types().stream().allMatch(SqlType::nullable)))
        .rows(a -> {
          Object best = null;
          for (Object v : a) {
            if (v != null && (best == null || sign * compare(v, best) > 0)) {
              best = v;
            }
          }
          return best;
        });
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Object a, Object b) {
    if (a instanceof BigDecimal x) {
      return x.compareTo((BigDecimal) b);
    }
    return ((Comparable) a).compareTo(b);
  }
}
