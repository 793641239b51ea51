package dev.lake.sql.slt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SltScriptTest {

  @Test
  void parsesStatementsQueriesConditionsAndResultsOfTheClassicFormat() {
    SltScript script = SltScript.parse("t.test", """
        # a comment
        hash-threshold 8

        statement ok
        CREATE TABLE t1(a INTEGER,
          b INTEGER)

        skipif mysql # not compatible
        onlyif postgresql
        query IT rowsort label-7
        SELECT a, 'x'
          FROM t1
        ----
        1
        x

        query I nosort
        SELECT a FROM t1
        ----
        30 values hashing to 3c13dee48d9356ae19af2515e05e6b54

        halt
        """);
    List<SltRecord> records = script.records();
    assertEquals(5, records.size());
    assertEquals(8, assertInstanceOf(SltRecord.HashThreshold.class, records.get(0)).threshold());
    SltRecord.Statement create = assertInstanceOf(SltRecord.Statement.class, records.get(1));
    assertEquals("CREATE TABLE t1(a INTEGER,\n  b INTEGER)", create.sql());
    assertEquals(4, create.line());
    assertFalse(create.expectError());
    SltRecord.Query q = assertInstanceOf(SltRecord.Query.class, records.get(2));
    assertEquals(List.of(new SltRecord.Condition(false, "mysql"), new SltRecord.Condition(true, "postgresql")),
        q.conditions());
    assertEquals("IT", q.types());
    assertEquals(SltRecord.SortMode.ROWSORT, q.sort());
    assertEquals("label-7", q.label());
    assertEquals("SELECT a, 'x'\n  FROM t1", q.sql());
    assertEquals(new SltRecord.Values(List.of("1", "x")), q.expected());
    SltRecord.Query hashed = assertInstanceOf(SltRecord.Query.class, records.get(3));
    assertNull(hashed.label());
    assertEquals(new SltRecord.Hash(30, "3c13dee48d9356ae19af2515e05e6b54"), hashed.expected());
    assertInstanceOf(SltRecord.Halt.class, records.get(4));
  }

  @Test
  void readsCarriageReturnLineEndingsAsSomeCorpusFilesHaveThem() {
    SltScript script = SltScript.parse("crlf.test", "statement ok\r\nCREATE TABLE t(x INTEGER)\r\n\r\n"
        + "query I valuesort\r\nSELECT x FROM t\r\n----\r\n1\r\n");
    assertEquals("CREATE TABLE t(x INTEGER)", ((SltRecord.Statement) script.records().get(0)).sql());
    SltRecord.Query q = (SltRecord.Query) script.records().get(1);
    assertEquals(SltRecord.SortMode.VALUESORT, q.sort());
    assertEquals(new SltRecord.Values(List.of("1")), q.expected());
  }

  @Test
  void readsTheErrorExtensionsWithAnOptionalKind() {
    SltScript script = SltScript.parse("e.slt", """
        statement error INVALID
        SELECT nope(1)

        query error
        SELECT 1 / 0
        """);
    SltRecord.Statement s = (SltRecord.Statement) script.records().get(0);
    assertTrue(s.expectError());
    assertEquals("INVALID", s.errorKind());
    SltRecord.Query q = (SltRecord.Query) script.records().get(1);
    assertTrue(q.expectError());
    assertNull(q.errorKind());
  }

  @Test
  void conditionsAdmitByTheDatabasesNames() {
    Set<String> lake = Set.of("postgresql", "lake");
    assertFalse(new SltRecord.Condition(false, "postgresql").admits(lake));
    assertTrue(new SltRecord.Condition(false, "mysql").admits(lake));
    assertTrue(new SltRecord.Condition(true, "lake").admits(lake));
    assertFalse(new SltRecord.Condition(true, "mssql").admits(lake));
  }

  @Test
  void malformedRecordsAreRefusedNamingTheFileAndLine() {
    assertEquals("bad.test:3: unknown record 'select'",
        assertThrows(SltScript.FormatException.class,
            () -> SltScript.parse("bad.test", "halt\n\nselect 1\n")).getMessage());
    assertThrows(SltScript.FormatException.class, () -> SltScript.parse("q.test", "query X nosort\nSELECT 1\n"));
    assertThrows(SltScript.FormatException.class, () -> SltScript.parse("q.test", "query I sideways\nSELECT 1\n"));
    assertThrows(SltScript.FormatException.class, () -> SltScript.parse("q.test", "query\nSELECT 1\n"));
    assertThrows(SltScript.FormatException.class, () -> SltScript.parse("s.test", "statement maybe\nSELECT 1\n"));
    assertThrows(SltScript.FormatException.class, () -> SltScript.parse("s.test", "statement ok\n"));
    assertThrows(SltScript.FormatException.class, () -> SltScript.parse("c.test", "skipif\nhalt\n"));
    assertThrows(SltScript.FormatException.class, () -> SltScript.parse("c.test", "onlyif lake\n"));
    assertThrows(SltScript.FormatException.class, () -> SltScript.parse("h.test", "hash-threshold many\n"));
    assertEquals(0, SltScript.parse("empty.test", "").records().size());
  }
}
