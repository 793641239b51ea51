package dev.lake.engine.lance;

import dev.lake.engine.expr.And;
import dev.lake.engine.expr.Between;
import dev.lake.engine.expr.ColumnRef;
import dev.lake.engine.expr.Comparison;
import dev.lake.engine.expr.Expression;
import dev.lake.engine.expr.In;
import dev.lake.engine.expr.IsNull;
import dev.lake.engine.expr.Literal;
import dev.lake.engine.expr.Not;
import dev.lake.engine.expr.Or;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Translates lake's pushdown IR into a Lance (DataFusion SQL) filter string.
 *
 * <p>A pushed filter removes rows inside Lance, so a wrong translation would lose rows the
 * executor can never recover. Only nodes whose SQL meaning is certain are translated: columns of
 * this table compared with literals of the same type family. An AND may drop the terms it cannot
 * translate (the result keeps a superset of the matching rows); OR and NOT translate only when
 * every part does. {@link Pushdown#exact()} tells whether the string is the whole predicate, which
 * is what allows a row limit to be pushed along with it.
 */
final class LanceFilter {

  /** A Lance filter and whether it is equivalent to the whole predicate. */
  record Pushdown(String sql, boolean exact) {}

  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS").withZone(ZoneOffset.UTC);

  private final Schema schema;

  private LanceFilter(Schema schema) {
    this.schema = schema;
  }

  /** The filter to push for {@code predicate}, or empty if no part of it can be pushed. */
  static Optional<Pushdown> translate(Schema schema, Expression predicate) {
    LanceFilter f = new LanceFilter(schema);
    Optional<String> exact = f.exact(predicate);
    if (exact.isPresent()) {
      return Optional.of(new Pushdown(exact.get(), true));
    }
    return f.superset(predicate).map(sql -> new Pushdown(sql, false));
  }

  /** A filter that keeps at least every row the predicate keeps. */
  private Optional<String> superset(Expression e) {
    if (e instanceof And and) {
      List<String> parts = new ArrayList<>();
      for (Expression term : and.terms()) {
        superset(term).ifPresent(parts::add);
      }
      return parts.isEmpty() ? Optional.empty() : Optional.of(join(parts, " AND "));
    }
    return exact(e);
  }

  /** A filter that keeps exactly the rows the predicate keeps. */
  private Optional<String> exact(Expression e) {
    return switch (e) {
      case And and -> all(and.terms(), " AND ");
      case Or or -> all(or.terms(), " OR ");
      case Not not -> exact(not.term()).map(s -> "(NOT " + s + ")");
      case IsNull isNull -> column(isNull.value()).map(c -> "(" + c.sql + " IS NULL)");
      case Comparison cmp -> comparison(cmp);
      case Between b -> between(b);
      case In in -> in(in);
      case ColumnRef c -> column(c).filter(col -> col.type instanceof ArrowType.Bool).map(col -> col.sql);
      case Literal l -> Optional.empty();
    };
  }

  private Optional<String> all(List<Expression> terms, String op) {
    List<String> parts = new ArrayList<>();
    for (Expression term : terms) {
      Optional<String> sql = exact(term);
      if (sql.isEmpty()) {
        return Optional.empty();
      }
      parts.add(sql.get());
    }
    return Optional.of(join(parts, op));
  }

  private Optional<String> comparison(Comparison cmp) {
    String op = switch (cmp.op()) {
      case EQ -> "=";
      case NE -> "<>";
      case LT -> "<";
      case LE -> "<=";
      case GT -> ">";
      case GE -> ">=";
    };
    if (cmp.left() instanceof ColumnRef left && cmp.right() instanceof Literal right) {
      return column(left).flatMap(c -> literal(c, right)).map(v -> "(" + column(left).get().sql + " " + op + " " + v + ")");
    }
    if (cmp.left() instanceof Literal left && cmp.right() instanceof ColumnRef right) {
      return column(right).flatMap(c -> literal(c, left)).map(v -> "(" + v + " " + op + " " + column(right).get().sql + ")");
    }
    if (cmp.left() instanceof ColumnRef a && cmp.right() instanceof ColumnRef b) {
      Optional<Col> ca = column(a);
      Optional<Col> cb = column(b);
      if (ca.isPresent() && cb.isPresent() && family(ca.get().type) != null
          && family(ca.get().type).equals(family(cb.get().type))) {
        return Optional.of("(" + ca.get().sql + " " + op + " " + cb.get().sql + ")");
      }
    }
    return Optional.empty();
  }

  private Optional<String> between(Between b) {
    if (!(b.value() instanceof ColumnRef ref && b.low() instanceof Literal low && b.high() instanceof Literal high)) {
      return Optional.empty();
    }
    Optional<Col> col = column(ref);
    if (col.isEmpty()) {
      return Optional.empty();
    }
    Optional<String> lo = literal(col.get(), low);
    Optional<String> hi = literal(col.get(), high);
    if (lo.isEmpty() || hi.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of("(" + col.get().sql + " BETWEEN " + lo.get() + " AND " + hi.get() + ")");
  }

  private Optional<String> in(In in) {
    if (!(in.value() instanceof ColumnRef ref)) {
      return Optional.empty();
    }
    Optional<Col> col = column(ref);
    if (col.isEmpty()) {
      return Optional.empty();
    }
    List<String> values = new ArrayList<>();
    for (Literal l : in.list()) {
      Optional<String> v = literal(col.get(), l);
      if (v.isEmpty()) {
        return Optional.empty();
      }
      values.add(v.get());
    }
    return Optional.of("(" + col.get().sql + " IN (" + String.join(", ", values) + "))");
  }

  private record Col(String sql, ArrowType type) {}

  private Optional<Col> column(Expression e) {
    if (!(e instanceof ColumnRef ref) || ref.name().indexOf('`') >= 0) {
      return Optional.empty();
    }
    for (Field f : schema.getFields()) {
      if (f.getName().equals(ref.name())) {
        return Optional.of(new Col("`" + ref.name() + "`", f.getType()));
      }
    }
    return Optional.empty();
  }

  /** The family of types that compare with one another without surprises, or null. */
  private static String family(ArrowType t) {
    return switch (t) {
      case ArrowType.Int i -> "number";
      case ArrowType.FloatingPoint fp -> "number";
      case ArrowType.Utf8 u -> "string";
      case ArrowType.LargeUtf8 u -> "string";
      case ArrowType.Bool b -> "bool";
      case ArrowType.Date d when d.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY -> "date";
      case ArrowType.Timestamp ts when ts.getTimezone() == null -> "timestamp";
      default -> null;
    };
  }

  /** A SQL literal for {@code l} compared with {@code col}, or empty if not certain. */
  private static Optional<String> literal(Col col, Literal l) {
    Object v = l.value();
    String family = family(col.type);
    if (v == null || family == null || !family.equals(family(l.type()))) {
      return Optional.empty();
    }
    return switch (v) {
      case Long n when l.type() instanceof ArrowType.Int -> Optional.of(Long.toString(n));
      case Long days when l.type() instanceof ArrowType.Date -> Optional.of("date '" + LocalDate.ofEpochDay(days) + "'");
      case Long micros when l.type() instanceof ArrowType.Timestamp ->
          Optional.of("timestamp '" + TIMESTAMP.format(Instant.EPOCH.plusNanos(Math.multiplyExact(micros, 1000L))) + "'");
      case Double d when Double.isFinite(d) -> Optional.of(BigDecimal.valueOf(d).toPlainString());
      case Boolean b -> Optional.of(b ? "TRUE" : "FALSE");
      case String s -> Optional.of("'" + s.replace("'", "''") + "'");
      default -> Optional.empty();
    };
  }

  private static String join(List<String> parts, String op) {
    return parts.size() == 1 ? parts.getFirst() : "(" + String.join(op, parts) + ")";
  }
}
