package dev.lake.exec.fn;

import static dev.lake.exec.fn.Param.BIGINT;
import static dev.lake.exec.fn.Param.ELEMENT;
import static dev.lake.exec.fn.Param.LIST;

import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import dev.lake.exec.expr.ListBatch;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Functions of lists (SQL arrays), PostgreSQL's semantics with DuckDB's names beside them:
 * positions are 1-based; a NULL list gives NULL; NULL elements inside a list are values like any
 * other for {@code cardinality} and {@code array_position} (which finds a NULL when asked for one,
 * as PostgreSQL does) and never equal anything for {@code array_contains}. Elements are compared
 * in the common type of the element and the value sought ({@code 2 = 2.0}).
 */
public final class ListFunctions {
  private ListFunctions() {}

  private static final SqlType INT32 = SqlType.of(SqlType.Kind.INT32, true);

  /**
   * {@code cardinality(list)}: the number of elements (INTEGER), 0 for an empty list. Not
   * registered by name: the planner reads a column's list lengths from its offsets, and uses
   * this only for computed lists ({@code cardinality(ARRAY[1, 2])}).
   */
  public static final ScalarFunction CARDINALITY = Scalar.named("cardinality")
      .takes(LIST)
      .returns(SqlType.Kind.INT32)
      .kernel((args, b, t) -> batch -> {
        ListBatch lists = ListBatch.of(args.getFirst(), b.type(0).element(), batch);
        Col.Longs out = new Col.Longs(lists.size());
        for (int i = 0; i < lists.size(); i++) {
          if (lists.isNull(i)) {
            out.nulls[i] = true;
          } else {
            out.values[i] = lists.length(i);
          }
        }
        return out;
      });

  /**
   * {@code array_length(list, dimension)}: the length along {@code dimension}, which is 1 for
   * lake's one-dimensional lists; NULL for any other dimension and, as in PostgreSQL, for an
   * empty list.
   */
  public static final ScalarFunction ARRAY_LENGTH = Scalar.named("array_length")
      .takes(LIST, BIGINT)
      .returns(SqlType.Kind.INT32)
      .kernel((args, b, t) -> batch -> {
        ListBatch lists = ListBatch.of(args.get(0), b.type(0).element(), batch);
        Col.Longs dimension = (Col.Longs) args.get(1).eval(batch);
        Col.Longs out = new Col.Longs(lists.size());
        for (int i = 0; i < lists.size(); i++) {
          if (lists.isNull(i) || dimension.nulls[i] || dimension.values[i] != 1 || lists.length(i) == 0) {
            out.nulls[i] = true;
          } else {
            out.values[i] = lists.length(i);
          }
        }
        return out;
      });

  /**
   * {@code list_extract(list, index)} (also {@code array_extract}, and {@code list[index]} of a
   * computed list): the 1-based element; NULL past either end, for a NULL index, or when the
   * element is NULL.
   */
  public static final ScalarFunction LIST_EXTRACT = Scalar.named("list_extract", "array_extract", "list_element")
      .takes(LIST, BIGINT)
      .nullable(args -> args.type(0).element().withNullable(true))
      .kernel((args, b, t) -> batch -> {
        ListBatch lists = ListBatch.of(args.get(0), b.type(0).element(), batch);
        Col.Longs index = (Col.Longs) args.get(1).eval(batch);
        List<Object> values = new ArrayList<>(lists.size());
        for (int i = 0; i < lists.size(); i++) {
          long k = index.nulls[i] ? 0 : index.values[i];
          values.add(lists.isNull(i) || k < 1 || k > lists.length(i) ? null
              : lists.elements().get(lists.start(i) + (int) k - 1));
        }
        return dev.lake.exec.Vectors.fromObjects(t, values);
      });

  /**
   * {@code array_contains(list, value)} (also {@code list_contains}, {@code list_has},
   * {@code array_has}): whether an element equals {@code value}; NULL when the list or the value
   * is NULL, FALSE when no element does (NULL elements never match).
   */
  public static final ScalarFunction ARRAY_CONTAINS = Scalar.named("array_contains", "list_contains", "list_has",
          "array_has")
      .takes(LIST, ELEMENT)
      .returns(SqlType.Kind.BOOL)
      .kernel((args, b, t) -> batch -> {
        ListBatch lists = ListBatch.of(args.get(0), b.type(0).element(), batch);
        Col x = args.get(1).eval(batch);
        Col.Bools out = new Col.Bools(lists.size());
        for (int i = 0; i < lists.size(); i++) {
          Object sought = x.get(i);
          if (lists.isNull(i) || sought == null) {
            out.nulls[i] = true;
          } else {
            out.values[i] = find(lists, i, sought) > 0;
          }
        }
        return out;
      });

  /**
   * {@code array_position(list, value)} (also {@code list_position}, {@code array_indexof}):
   * the 1-based position of the first element equal to {@code value}, NULL when there is none;
   * for a NULL {@code value}, the position of the first NULL element (PostgreSQL's IS NOT
   * DISTINCT FROM). NULL for a NULL list.
   */
  public static final ScalarFunction ARRAY_POSITION = Scalar.named("array_position", "list_position",
          "array_indexof", "list_indexof")
      .takes(LIST, ELEMENT)
      .nullable(args -> INT32)
      .kernel((args, b, t) -> batch -> {
        ListBatch lists = ListBatch.of(args.get(0), b.type(0).element(), batch);
        Col x = args.get(1).eval(batch);
        Col.Longs out = new Col.Longs(lists.size());
        for (int i = 0; i < lists.size(); i++) {
          int at = lists.isNull(i) ? 0 : find(lists, i, x.get(i));
          if (at == 0) {
            out.nulls[i] = true;
          } else {
            out.values[i] = at;
          }
        }
        return out;
      });

  /**
   * {@code list_value(a, ...)} (and {@code ARRAY[a, ...]}): a list of the arguments, in their
   * common type; never NULL itself, NULL arguments are NULL elements.
   */
  public static final ScalarFunction LIST_VALUE = Scalar.named("list_value", "list_pack")
      .takesVariadic(Param.SAME)
      .nullable(args -> SqlType.list(args.type(0).withNullable(true), false))
      .kernel((args, b, t) -> batch -> {
        Col[] in = new Col[args.size()];
        for (int k = 0; k < in.length; k++) {
          in[k] = args.get(k).eval(batch);
        }
        Col.Objects out = new Col.Objects(batch.count());
        for (int i = 0; i < out.size; i++) {
          List<Object> l = new ArrayList<>(in.length);
          for (Col c : in) {
            l.add(c.get(i));
          }
          out.values[i] = l;
        }
        return out.markNoNulls();
      });

  /** What lake registers by name. */
  static final List<ScalarFunction> ALL = List.of(ARRAY_LENGTH, LIST_EXTRACT, ARRAY_CONTAINS, ARRAY_POSITION,
      LIST_VALUE);

  /** The 1-based position of the first element of row {@code i} equal to {@code sought} (null: a NULL one), or 0. */
  private static int find(ListBatch lists, int i, Object sought) {
    Col elements = lists.elements();
    int start = lists.start(i);
    for (int k = 0; k < lists.length(i); k++) {
      Object e = elements.get(start + k);
      if (sought == null ? e == null : e != null && same(e, sought)) {
        return k + 1;
      }
    }
    return 0;
  }

  /** SQL equality of two non-null values of types that have a common type. */
  static boolean same(Object a, Object b) {
    if (a instanceof Number x && b instanceof Number y && a.getClass() != b.getClass()) {
      if (x instanceof Double || y instanceof Double) {
        return x.doubleValue() == y.doubleValue();
      }
      return decimal(x).compareTo(decimal(y)) == 0;
    }
    if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
      return x.compareTo(y) == 0;
    }
    if (a instanceof Double x && b instanceof Double y) {
      return x.doubleValue() == y.doubleValue();
    }
    return a.equals(b);
  }

  private static BigDecimal decimal(Number n) {
    return n instanceof BigDecimal d ? d : BigDecimal.valueOf(n.longValue());
  }
}
