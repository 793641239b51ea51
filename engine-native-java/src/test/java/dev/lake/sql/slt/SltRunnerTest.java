package dev.lake.sql.slt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.sql.slt.SltResult.Outcome;
import org.junit.jupiter.api.Test;

/** The runner's judging, over DuckDB (the reference database) and scripts written here. */
class SltRunnerTest {

  private static final String TABLE = """
      statement ok
      CREATE TABLE t(a INTEGER, b VARCHAR)

      statement ok
      INSERT INTO t VALUES (2, 'two'), (1, 'one'), (3, NULL), (10, '')

      """;

  private static SltResult run(String script) {
    try (DuckDbDatabase duck = new DuckDbDatabase()) {
      return SltRunner.run(SltScript.parse("inline.test", TABLE + script), duck, "duckdb");
    }
  }

  @Test
  void sortModesOrderFormattedValuesAsStrings() {
    SltResult result = run("""
        query IT rowsort
        SELECT a, b FROM t
        ----
        1
        one
        10
        (empty)
        2
        two
        3
        NULL

        query I valuesort
        SELECT a FROM t UNION ALL SELECT -a FROM t
        ----
        -1
        -10
        -2
        -3
        1
        10
        2
        3

        query I nosort
        SELECT a FROM t ORDER BY a DESC
        ----
        10
        3
        2
        1

        query IT rowsort
        SELECT a, b FROM t WHERE a < 3
        ----
        1 one
        2 two
        """);
    assertEquals(4, result.get(Outcome.PASSED), result.problems()::toString);
    assertEquals(4, result.queries());
  }

  @Test
  void aWrongValueOrOrderIsAWrongResult() {
    SltResult result = run("""
        query I nosort
        SELECT a FROM t ORDER BY a
        ----
        1
        2
        10
        3

        query I rowsort
        SELECT a + 1 FROM t
        ----
        2
        3
        4
        12

        query II rowsort
        SELECT a FROM t
        ----
        1
        """);
    assertEquals(3, result.get(Outcome.WRONG));
    assertTrue(result.problems(Outcome.WRONG).get(2).detail().contains("returned 1 columns"),
        result.problems()::toString);
  }

  @Test
  void hashedResultsCompareTheMd5AndTheCount() {
    // valuesort orders as strings: printf '1\n10\n2\n3\n' | md5sum
    SltResult result = run("""
        query I valuesort
        SELECT a FROM t
        ----
        4 values hashing to 87c6477e10fbbfe1f7628fe090f8d2c2

        query I valuesort
        SELECT a FROM t WHERE a > 1
        ----
        4 values hashing to 87c6477e10fbbfe1f7628fe090f8d2c2
        """);
    assertEquals(1, result.get(Outcome.PASSED), result.problems()::toString);
    assertEquals(1, result.get(Outcome.WRONG));
  }

  @Test
  void queriesOfOneLabelMustAgree() {
    SltResult result = run("""
        query I rowsort label-1
        SELECT a FROM t WHERE a = 1
        ----
        1

        query I rowsort label-1
        SELECT a FROM t WHERE a = 2
        ----
        2
        """);
    assertEquals(1, result.get(Outcome.PASSED));
    assertEquals(1, result.get(Outcome.WRONG), result.problems()::toString);
  }

  @Test
  void postgresqlConditionsAreHonouredAndHaltStopsTheScript() {
    SltResult result = run("""
        skipif postgresql
        query I nosort
        SELECT 1
        ----
        2

        onlyif mysql
        query I nosort
        SELECT 1
        ----
        2

        onlyif duckdb
        query I nosort
        SELECT 1
        ----
        1

        onlyif postgresql
        halt

        query I nosort
        SELECT 1
        ----
        2
        """);
    assertEquals(1, result.get(Outcome.PASSED), result.problems()::toString);
    assertEquals(1, result.queries());
    assertEquals(2, result.skipped());
  }

  @Test
  void refusalsAreCountedApartFromWrongResults() {
    SltResult result = run("""
        query I nosort
        SELECT no_such_function(a) FROM t
        ----
        1

        query error
        SELECT * FROM no_such_table

        statement error
        SELECT * FROM no_such_table

        statement error
        SELECT 1
        """);
    assertEquals(1, result.get(Outcome.REFUSED));
    assertEquals(1, result.get(Outcome.PASSED));
    assertEquals(1, result.failedStatements(), result.problems()::toString);
    assertEquals(1, result.refusalKinds().values().stream().mapToInt(Integer::intValue).sum());
  }

  @Test
  void aFailedStatementThatChangesDataBlocksTheRestButAFailedIndexDoesNot() {
    SltResult result = run("""
        statement ok
        CREATE INDEX i ON nowhere(a)

        query I nosort
        SELECT count(*) FROM t
        ----
        4

        statement ok
        INSERT INTO nowhere VALUES (1)

        query I nosort
        SELECT count(*) FROM t
        ----
        4
        """);
    assertEquals(1, result.get(Outcome.PASSED), result.problems()::toString);
    assertEquals(1, result.get(Outcome.BLOCKED));
    assertEquals(2, result.failedStatements());
  }
}
