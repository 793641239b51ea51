package dev.lake.sql;

import dev.lake.sql.slt.SltGoldenFiles;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * lake's own golden sqllogictest files, {@code src/test/resources/slt/**}{@code /*.slt}: each file
 * one test, run against a fresh lake database ({@link LakeSltDatabase}); every query in it must
 * pass. A function's file goes beside the others (see docs/sqllogictest.md).
 */
class LakeGoldenSltTest {

  @TestFactory
  Stream<DynamicTest> goldenFilesPassOnLake() {
    return SltGoldenFiles.tests(Path.of("src", "test", "resources", "slt"), LakeSltDatabase::new, "lake");
  }
}
