package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.Version;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SqlTimeTravelTest extends SqlFixture {

  @Test
  void forVersionAsOfReadsThatVersion() {
    assertEquals(List.of(list(6L)), rows("SELECT count(*) FROM demo.episodes FOR VERSION AS OF 1"));
    assertEquals(List.of(list(0L)), rows("SELECT count(*) FROM demo.episodes FOR VERSION AS OF 0"));
    assertEquals(List.of(list(8L)), rows("select count(*) from episodes for version as of 2 e"));
    assertEquals(List.of(list(6L)),
        rows("SELECT max(e.id) FROM lake.demo.episodes FOR VERSION AS OF 1 AS e WHERE e.id > 0"));
  }

  @Test
  void forVersionInsideStringsAndQuotedNamesIsNotRewritten() {
    assertEquals(List.of(list("FOR VERSION AS OF 1")), rows("SELECT 'FOR VERSION AS OF 1'"));
    assertEquals("SELECT 'for version as of' FROM t FOR SYSTEM_TIME AS OF 3 -- for version as of",
        SqlParsing.rewriteTimeTravel(
            "SELECT 'for version as of' FROM t FOR VERSION AS OF 3 -- for version as of"));
  }

  @Test
  void pinsReportTheVersionRead() {
    assertEquals(Map.of(EPISODES, Version.of(2)), engine.prepare("SELECT id FROM episodes").pins());
    assertEquals(Map.of(EPISODES, Version.of(1)),
        engine.prepare("SELECT id FROM episodes FOR VERSION AS OF 1").pins());
    assertEquals(Map.of(), engine.prepare("SELECT 1").pins());
  }

  @Test
  void preparingWithPinsReplaysThePinnedVersionAfterMoreAppends() {
    PreparedQuery first = engine.prepare("SELECT count(*), max(id) FROM demo.episodes");
    Map<TableName, Version> pins = first.pins();
    episodes.appendRows(List.<Object[]>of(row(9L, "bb8", "pick", true, 1.0, dec("0.100"), null, null)));
    assertEquals(List.of(list(8L, 8L)), rows("SELECT count(*), max(id) FROM demo.episodes", pins));
    assertEquals(List.of(list(8L, 8L)), rows(first));
    assertEquals(List.of(list(9L, 9L)), rows("SELECT count(*), max(id) FROM demo.episodes"));
    // FOR VERSION AS OF in the text wins over a pin.
    assertEquals(List.of(list(6L)), rows("SELECT count(*) FROM demo.episodes FOR VERSION AS OF 1", pins));
  }

  @Test
  void missingVersionIsVersionNotFoundNamingTableAndVersion() {
    SqlException e = assertThrows(SqlException.class,
        () -> engine.prepare("SELECT id FROM demo.episodes FOR VERSION AS OF 42"));
    assertEquals(SqlException.Kind.VERSION_NOT_FOUND, e.kind());
    assertEquals("version 42 of table lake.demo.episodes not found", e.getMessage());
    assertEquals(1, e.line());
    assertTrue(e.column() > 0);
    SqlException pinned = assertThrows(SqlException.class,
        () -> engine.prepare("SELECT id FROM demo.episodes", Map.of(EPISODES, Version.of(7))));
    assertEquals(SqlException.Kind.VERSION_NOT_FOUND, pinned.kind());
    assertTrue(pinned.getMessage().contains("version 7 of table lake.demo.episodes"), pinned.getMessage());
  }

  @Test
  void errorPositionsAfterForVersionAsOfPointIntoTheOriginalText() {
    SqlException e = assertThrows(SqlException.class,
        () -> engine.prepare("SELECT id FROM episodes FOR VERSION AS OF 1 WHERE nope = 1"));
    assertEquals(SqlException.Kind.INVALID, e.kind());
    assertEquals(51, e.column());
    assertEquals("column nope not found (line 1, column 51)", e.getMessage());
    SqlException syntax = assertThrows(SqlException.class,
        () -> engine.prepare("SELECT id FROM episodes FOR VERSION AS OF 1 WHERE id ) 1"));
    assertEquals(SqlException.Kind.SYNTAX, syntax.kind());
    assertEquals(54, syntax.column());
    assertTrue(syntax.getMessage().contains("column 54"), syntax.getMessage());
  }

  @Test
  void forTimestampAsOfBeforeEveryCommitNamesTheTableAndTime() {
    // The in-memory tables record every version as committed at the epoch.
    SqlException e = assertThrows(SqlException.class,
        () -> engine.prepare("SELECT id FROM demo.episodes FOR TIMESTAMP AS OF '1969-12-31 23:59:59'"));
    assertEquals(SqlException.Kind.VERSION_NOT_FOUND, e.kind());
    assertEquals("table lake.demo.episodes has no version committed at or before 1969-12-31 23:59:59 UTC;"
        + " its first readable version, 0, was committed at 1970-01-01 00:00", e.getMessage());
    assertEquals(List.of(list(8L)),
        rows("SELECT count(*) FROM demo.episodes FOR TIMESTAMP AS OF TIMESTAMP '1970-01-01 00:00:00'"));
  }

  @Test
  void forTimestampAsOfWithTextThatIsNoTimeIsInvalid() {
    SqlException e = assertThrows(SqlException.class,
        () -> engine.prepare("SELECT id FROM demo.episodes FOR TIMESTAMP AS OF 'yesterday'"));
    assertEquals(SqlException.Kind.INVALID, e.kind());
    assertTrue(e.getMessage().contains("got 'yesterday'"), e.getMessage());
  }
}
