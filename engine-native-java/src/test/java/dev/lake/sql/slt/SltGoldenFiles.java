package dev.lake.sql.slt;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.DynamicTest;

/**
 * A directory of golden {@code .slt} files as JUnit dynamic tests, one per file, each run against
 * a fresh database: a file passes only when every statement and query in it does (a refusal
 * fails it as surely as a wrong result). Use from a {@code @TestFactory}.
 */
public final class SltGoldenFiles {
  private SltGoldenFiles() {}

  public static Stream<DynamicTest> tests(Path dir, Supplier<? extends SltDatabase> databases,
      String databaseName) {
    List<Path> files = SltCorpus.scripts(dir);
    return files.stream().map(file -> DynamicTest.dynamicTest(dir.relativize(file).toString(), file.toUri(), () -> {
      SltScript script;
      try {
        script = SltScript.read(file, dir.relativize(file).toString());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      SltResult result;
      try (SltDatabase database = databases.get()) {
        result = SltRunner.run(script, database, databaseName);
      }
      Assertions.assertTrue(result.problems().isEmpty() && result.failedStatements() == 0
              && result.get(SltResult.Outcome.PASSED) == result.queries(),
          () -> result.summary() + "\n" + String.join("\n", result.problems().stream().map(Object::toString).toList()));
    }));
  }
}
