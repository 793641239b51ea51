package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StatementLimitsTest {

  private static final StatementLimits LIMITS = StatementLimits.DEFAULTS;

  private static SqlException refused(StatementLimits limits, String sql) {
    return assertThrows(SqlException.class, () -> limits.check(sql));
  }

  @Test
  void aThousandTermOrIsWithinTheDefaults() {
    StringBuilder sql = new StringBuilder("SELECT count(*) FROM t WHERE id = 0");
    for (int i = 1; i < 1_000; i++) {
      sql.append(" OR id = ").append(i);
    }
    assertDoesNotThrow(() -> LIMITS.check(sql.toString()));
  }

  @Test
  void textOverTheByteLimitIsRefusedNamingTheLimitInUtf8Bytes() {
    StatementLimits small = LIMITS.withMaxStatementBytes(100);
    // 69 characters, 129 bytes of UTF-8.
    SqlException e = refused(small, "SELECT '" + "ö".repeat(60) + "'");
    assertEquals(SqlException.Kind.RESOURCE_EXHAUSTED, e.kind());
    assertTrue(e.getMessage().contains("129 bytes long; the limit is 100 bytes (statement bytes)"),
        e.getMessage());
    assertDoesNotThrow(() -> small.check("SELECT '" + "x".repeat(91) + "'"));
  }

  @Test
  void deepParenthesesAreRefusedAtTheLevelThatCrossesTheLimit() {
    StatementLimits limits = LIMITS.withMaxDepth(50);
    assertDoesNotThrow(() -> limits.check("SELECT " + "(".repeat(45) + "1" + ")".repeat(45)));
    SqlException e = refused(limits, "SELECT " + "(".repeat(1_000_000) + "1");
    assertEquals(SqlException.Kind.RESOURCE_EXHAUSTED, e.kind());
    assertTrue(e.getMessage().contains("the limit is 50 (expression depth)"), e.getMessage());
    assertEquals(1, e.line());
    assertTrue(e.column() > 40 && e.column() < 60, "column " + e.column());
  }

  @Test
  void operatorChainsCaseAndNotCountTowardsTheDepth() {
    StatementLimits limits = LIMITS.withMaxDepth(100);
    assertEquals(SqlException.Kind.RESOURCE_EXHAUSTED,
        refused(limits, "SELECT 1" + "+1".repeat(200)).kind());
    assertEquals(SqlException.Kind.RESOURCE_EXHAUSTED,
        refused(limits, "SELECT " + "CASE WHEN x THEN ".repeat(60) + "1" + " END".repeat(60)).kind());
    assertEquals(SqlException.Kind.RESOURCE_EXHAUSTED,
        refused(limits, "SELECT 1 WHERE " + "NOT ".repeat(200) + "x").kind());
    // Separate items of a list do not add up.
    assertDoesNotThrow(() -> limits.check("SELECT " + "1+1+1, ".repeat(500) + "1"));
  }

  @Test
  void literalsQuotedNamesAndCommentsAreSkippedAsUnits() {
    StatementLimits limits = LIMITS.withMaxDepth(10);
    assertDoesNotThrow(() -> limits.check("SELECT '((((((((((((((((((((' -- ((((((((((((\n"
        + "/* (((((((((((((( */ FROM \"a((((((((((((b\""));
  }

  @Test
  void wideSelectListsAndLongListsAreRefused() {
    StatementLimits limits = LIMITS.withMaxStatementBytes(16 << 20).withMaxSelectColumns(100)
        .withMaxListTerms(1_000);
    SqlException wide = refused(limits, "SELECT " + "c, ".repeat(4_000_000) + "c FROM t");
    assertTrue(wide.getMessage().contains("more than 100 columns; the limit is 100 (select-list width)"),
        wide.getMessage());
    // The IN list is not a select list: only the list-terms limit applies to it.
    assertDoesNotThrow(() -> limits.check("SELECT a FROM t WHERE a IN (" + "1, ".repeat(900) + "1)"));
    SqlException in = refused(limits, "SELECT a FROM t WHERE a IN (" + "1, ".repeat(5_000) + "1)");
    assertTrue(in.getMessage().contains("(list terms)"), in.getMessage());
    // A subquery's select list is counted on its own, and FROM ends the outer one.
    assertDoesNotThrow(() -> limits.check("SELECT a, b, (SELECT " + "x, ".repeat(90) + "x FROM u)"
        + " FROM t GROUP BY " + "a, ".repeat(500) + "b"));
  }

  @Test
  void longIdentifiersAreInvalidWithABoundedExcerpt() {
    SqlException bare = refused(LIMITS, "SELECT " + "a".repeat(10_000) + " FROM t");
    assertEquals(SqlException.Kind.INVALID, bare.kind());
    assertTrue(bare.getMessage().contains("is 10,000 characters long; the limit is 128 characters"),
        bare.getMessage());
    assertTrue(bare.getMessage().length() < 300, bare.getMessage());
    SqlException quoted = refused(LIMITS, "SELECT \"" + "b".repeat(10_000) + "\" FROM t");
    assertEquals(SqlException.Kind.INVALID, quoted.kind());
    assertDoesNotThrow(() -> LIMITS.check("SELECT \"" + "b".repeat(128) + "\" FROM t"));
  }

  @Test
  void limitsMustBePositive() {
    assertThrows(IllegalArgumentException.class, () -> LIMITS.withMaxDepth(0));
  }
}
