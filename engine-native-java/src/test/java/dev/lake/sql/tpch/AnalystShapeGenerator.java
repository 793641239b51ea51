package dev.lake.sql.tpch;

import java.util.Random;

/**
 * Random queries of the shapes analysts write beyond plain joins and aggregates, over the tables
 * {@code t} and {@code u} of {@link SqlRandomDifferentialTest} (k INTEGER, s VARCHAR, v BIGINT,
 * x DOUBLE, d DATE, all with NULLs): grouping sets with {@code GROUPING()}, INTERSECT and EXCEPT
 * (distinct and ALL, two or three inputs), FULL joins with and without residual conditions, and
 * IN lists of expressions containing NULLs.
 */
final class AnalystShapeGenerator {
  private final Random r;
  private final SqlRandomDifferentialTest.QueryGenerator predicates;

  AnalystShapeGenerator(Random r) {
    this.r = r;
    this.predicates = new SqlRandomDifferentialTest.QueryGenerator(r);
  }

  String query() {
    return switch (r.nextInt(4)) {
      case 0 -> groupingSets();
      case 1 -> setOperation();
      case 2 -> fullJoin();
      default -> inList();
    };
  }

  private String pick(String... options) {
    return options[r.nextInt(options.length)];
  }

  private String groupingSets() {
    String a = pick("k % 4", "s", "d < DATE '2024-07-01'");
    String b = pick("v % 3", "s IS NULL", "k > 5");
    String sets = switch (r.nextInt(4)) {
      case 0 -> "ROLLUP(" + a + ", " + b + ")";
      case 1 -> "CUBE(" + a + ", " + b + ")";
      case 2 -> "GROUPING SETS ((" + a + "), (" + b + "), ())";
      default -> "GROUPING SETS ((" + a + ", " + b + "), (" + a + "))";
    };
    return "SELECT " + a + ", " + b + ", grouping(" + a + "), grouping(" + a + ", " + b + "), "
        + pick("count(*)", "count(v)", "sum(v)", "max(s)", "min(d)", "count(DISTINCT s)") + ", "
        + pick("sum(k)", "min(v)", "count(x)")
        + " FROM t WHERE " + predicates.predicate(2) + " GROUP BY " + sets
        + (r.nextInt(3) == 0 ? " HAVING grouping(" + b + ") = 0" : "");
  }

  private String setOperation() {
    String columns = pick("k", "s", "k % 3, s", "d", "k, s IS NULL", "v % 5");
    String op = pick("INTERSECT", "EXCEPT", "INTERSECT ALL", "EXCEPT ALL");
    String q = "SELECT " + columns + " FROM " + pick("t", "u") + " WHERE " + predicates.predicate(1)
        + " " + op + " SELECT " + columns + " FROM " + pick("t", "u") + " WHERE " + predicates.predicate(1);
    if (r.nextBoolean()) {
      q += " " + pick("INTERSECT", "EXCEPT ALL", "UNION ALL", "EXCEPT") + " SELECT " + columns + " FROM u WHERE "
          + predicates.predicate(1);
    }
    return q;
  }

  private String fullJoin() {
    String on = r.nextInt(5) == 0 ? "l.v < r.v - 1900"
        : "l.k = r.k" + pick("", " AND l.v < r.v", " AND l.s = r.s", " AND l.x > r.v * 2");
    boolean grouped = r.nextBoolean();
    return "SELECT " + (grouped ? "coalesce(l.k, r.k) AS key, count(*), max(l.s), min(r.s)"
            : "count(*), count(l.k), count(r.k), sum(l.v), sum(r.v)")
        + " FROM (SELECT * FROM t WHERE " + predicates.predicate(1) + ") AS l FULL JOIN"
        + " (SELECT * FROM u WHERE " + predicates.predicate(1) + ") AS r ON " + on
        + (r.nextInt(3) == 0 ? " WHERE l.k IS NULL OR r.s IS NULL" : "")
        + (grouped ? " GROUP BY coalesce(l.k, r.k)" : "");
  }

  private String inList() {
    String list = pick("v % 7, k + 1", "+k, CAST(NULL AS INTEGER) * 22", "k * 2, v - 1, 3", "NULL, k",
        "k - 2, 4");
    String x = pick("k", "v % 10", "k + 1");
    if (r.nextInt(4) == 0) {
      return "SELECT k, count(*) FROM t WHERE " + predicates.predicate(1) + " GROUP BY k HAVING count(*) "
          + pick("IN", "NOT IN") + " (" + r.nextInt(40) + ", max(v) % 50, min(k) + 100)";
    }
    return "SELECT k, v, " + x + " " + pick("IN", "NOT IN") + " (" + list + ") FROM t WHERE "
        + x + " " + pick("IN", "NOT IN") + " (" + list + ") OR " + predicates.predicate(1);
  }
}
