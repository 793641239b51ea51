package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.sql.slt.DuckDbDatabase;
import dev.lake.sql.slt.SltCorpus;
import dev.lake.sql.slt.SltResult;
import dev.lake.sql.slt.SltResult.Outcome;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bounded CI sample of SQLite's sqllogictest corpus (the committed copies in {@link
 * SltCorpus#SAMPLE}), run against lake and against DuckDB through the same runner. lake must give
 * no wrong result and no internal error, and pass at least the recorded share of each file;
 * refusals (functions and statements lake does not have yet) are counted and printed. Raise a
 * floor when lake passes more; never lower one to make a test pass.
 */
class SqliteCorpusSampleTest {

  /** lake's pass rate per sample file, as measured when it was recorded, rounded down. */
  private static final Map<String, Double> LAKE_FLOOR = Map.of(
      "test/select1.test", 1.0,
      "test/select2.test", 1.0);

  static List<String> files() {
    return LAKE_FLOOR.keySet().stream().sorted().toList();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("files")
  void lakeGivesNoWrongResultAndPassesItsFloor(String file) {
    SltResult lake = run(file, LakeSltDatabase::new, "lake");
    lake.problems(Outcome.REFUSED).forEach(System.out::println);
    System.out.println(lake.refusalKinds());
    assertEquals(List.of(), lake.problems(Outcome.WRONG), "wrong results");
    assertEquals(List.of(), lake.problems(Outcome.CRASHED), "internal errors");
    assertTrue(lake.passRate() >= LAKE_FLOOR.get(file), lake.summary());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("files")
  void duckDbPassesEveryQueryThroughTheSameRunner(String file) {
    SltResult duck = run(file, DuckDbDatabase::new, "duckdb");
    assertEquals(duck.queries(), duck.get(Outcome.PASSED), () -> duck.summary() + "\n" + duck.problems());
  }

  private static SltResult run(String file, java.util.function.Supplier<? extends dev.lake.sql.slt.SltDatabase> db,
      String name) {
    Path root = SltCorpus.SAMPLE;
    SltResult result = SltCorpus.run(root, List.of(root.resolve(file)), db, name).getFirst();
    assertTrue(result.queries() > 0, "no queries in " + file);
    return result;
  }
}
