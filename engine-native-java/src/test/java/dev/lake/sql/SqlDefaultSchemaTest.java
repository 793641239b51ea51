package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.Version;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Bare table names under a session's default schema, and the column origins plans report. */
class SqlDefaultSchemaTest extends SqlFixture {

  private static final TableName LAB_SHARED = new TableName("lab", "shared");
  private static final TableName DEMO_SHARED = new TableName("demo", "shared");

  @Test
  void aBareNameHeldByTwoSchemasResolvesInTheDefaultSchema() {
    SqlException ambiguous = assertThrows(SqlException.class, () -> engine.prepare("SELECT x FROM shared"));
    assertEquals(SqlException.Kind.TABLE_NOT_FOUND, ambiguous.kind());
    assertEquals(List.of(list(2)), rows(engine.prepare("SELECT x FROM shared", Map.of(), "lab")));
    assertEquals(List.of(list(1)), rows(engine.prepare("SELECT x FROM shared", Map.of(), "demo")));
    // Relational plans (a join) resolve the same way.
    assertEquals(List.of(list(2, 2)), rows(engine.prepare(
        "SELECT a.x, b.x FROM shared a JOIN shared b ON a.x = b.x", Map.of(), "lab")));
    assertEquals(Map.of(LAB_SHARED, Version.of(1)),
        engine.prepare("SELECT x FROM shared", Map.of(), "lab").pins());
  }

  @Test
  void qualifiedNamesAndNamesOutsideTheDefaultSchemaResolveAsBefore() {
    assertEquals(List.of(list(1)), rows(engine.prepare("SELECT x FROM demo.shared", Map.of(), "lab")));
    // episodes is only in demo: a default of lab does not hide it.
    assertEquals(List.of(list(8L)), rows(engine.prepare("SELECT count(*) FROM episodes", Map.of(), "lab")));
    assertEquals(List.of(list(8L)), rows(engine.prepare(
        "SELECT count(*) FROM episodes e JOIN shared s ON s.x = 2", Map.of(), "lab")));
  }

  @Test
  void plansUnderDifferentDefaultsAreKeptApart() {
    for (int i = 0; i < 3; i++) {
      assertEquals(List.of(list(2)), rows(engine.prepare("SELECT x FROM shared", Map.of(), "lab")));
      assertEquals(List.of(list(1)), rows(engine.prepare("SELECT x FROM shared", Map.of(), "demo")));
    }
    assertEquals(Map.of(DEMO_SHARED, Version.of(1)),
        engine.prepare("SELECT x FROM shared", Map.of(), "demo").pins());
  }

  @Test
  void originsNamePassedThroughColumnsOnly() {
    List<Optional<ColumnOrigin>> single =
        engine.prepare("SELECT id, robot AS r, id + 1 FROM demo.episodes").origins();
    assertEquals(List.of(Optional.of(new ColumnOrigin(EPISODES, "id")),
        Optional.of(new ColumnOrigin(EPISODES, "robot")), Optional.empty()), single);
    assertEquals(List.of(Optional.empty()),
        engine.prepare("SELECT count(*) FROM demo.episodes").origins());
    List<Optional<ColumnOrigin>> joined = engine.prepare(
        "SELECT e.robot, upper(e.task) FROM demo.episodes e JOIN demo.shared s ON s.x = 1").origins();
    assertEquals(Optional.of(new ColumnOrigin(EPISODES, "robot")), joined.get(0));
    assertTrue(joined.get(1).isEmpty(), joined.toString());
    assertEquals(List.of(Optional.empty()), engine.prepare("SELECT 1").origins());
  }
}
