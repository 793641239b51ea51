package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class DateTimeNamesTest {

  @Test
  void wordsStandingForNamesAreQuoted() {
    assertEquals("SELECT \"date\", \"time\", t.\"timestamp\", \"interval\" FROM t",
        DateTimeNames.quote("SELECT date, time, t.timestamp, interval FROM t"));
    assertEquals("SELECT x AS \"date\" FROM t ORDER BY \"date\"",
        DateTimeNames.quote("SELECT x AS Date FROM t ORDER BY DATE"));
    assertEquals("INSERT INTO t (\"date\", \"time\") VALUES (DATE '2024-01-01', TIMESTAMP '2024-01-01 00:00:00')",
        DateTimeNames.quote("INSERT INTO t (date, time) VALUES (DATE '2024-01-01', TIMESTAMP '2024-01-01 00:00:00')"));
  }

  @Test
  void literalsTypesAndTimeZonesKeepTheKeyword() {
    String sql = "SELECT CAST(d AS DATE), CAST(CAST(s AS VARCHAR) AS TIMESTAMP), x::date, TIMESTAMP(3) '2024-01-01',"
        + " TIMESTAMP WITH TIME ZONE '2024-01-01 00:00:00+00', ts + INTERVAL '1' MONTH FROM t FOR SYSTEM_TIME AS OF"
        + " TIMESTAMP '2024-01-01 00:00:00'";
    assertSame(sql, DateTimeNames.quote(sql));
    assertEquals("CREATE TABLE t (\"date\" DATE, \"time\" TIMESTAMP NOT NULL, value INT, \"timestamp\" TIMESTAMP(6))",
        DateTimeNames.quote("CREATE TABLE t (date DATE, time TIMESTAMP NOT NULL, value INT, timestamp TIMESTAMP(6))"));
    assertEquals("CREATE TABLE t AS SELECT \"date\" FROM s", DateTimeNames.quote("CREATE TABLE t AS SELECT date FROM s"));
  }

  @Test
  void stringsCommentsAndQuotedNamesAreLeftAlone() {
    String sql = "SELECT 'date', \"time\" FROM t -- date\n/* timestamp */";
    assertSame(sql, DateTimeNames.quote(sql));
  }
}
