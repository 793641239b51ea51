package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.sql.slt.SltDatabase;
import dev.lake.sql.slt.SltResult;
import dev.lake.sql.slt.SltRunner;
import dev.lake.sql.slt.SltScript;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The function registry's golden files ({@code src/test/resources/slt/functions/*.slt}, one per
 * family), each run by the sqllogictest runner against a fresh engine over real {@code log}
 * tables: every query must give exactly the file's values, and every {@code query error KIND}
 * must fail with that {@link SqlException.Kind}.
 */
class FunctionGoldenTest {
  private static final Path GOLDEN = Path.of("src", "test", "resources", "slt", "functions");

  @TempDir
  Path dir;

  @TestFactory
  Stream<DynamicTest> everyGoldenFilePasses() throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(GOLDEN)) {
      files = list.filter(p -> p.toString().endsWith(".slt")).sorted().toList();
    }
    assertTrue(files.size() >= 4, "golden files under " + GOLDEN);
    return files.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> run(file)));
  }

  private void run(Path file) throws IOException {
    SltScript script = SltScript.read(file, file.getFileName().toString());
    Path tables = Files.createTempDirectory(dir, "tables");
    try (RootAllocator allocator = new RootAllocator();
        LogTablesCatalog catalog = new LogTablesCatalog(tables);
        Lake lake = new Lake(new SqlEngine(catalog, Long.MAX_VALUE, 2), allocator)) {
      SltResult result = SltRunner.run(script, lake, "lake");
      assertEquals(List.of(), result.problems(), result.summary());
      assertTrue(result.queries() > 0, "no queries in " + file);
      assertEquals(result.queries(), result.get(SltResult.Outcome.PASSED), result.summary());
    }
  }

  /**
   * The engine as the runner's database: statements through executeUpdate, queries read whole
   * (text as strings); also the lake side of {@link SqlDateTimeDifferentialTest}.
   */
  record Lake(SqlEngine engine, RootAllocator allocator) implements SltDatabase {
    @Override
    public Set<String> names() {
      return Set.of("lake", "postgresql");
    }

    @Override
    public void execute(String sql) throws Failure {
      try {
        engine.executeUpdate(sql, allocator);
      } catch (SqlException e) {
        throw new Failure(e.kind().name(), false, e.getMessage(), e);
      } catch (RuntimeException e) {
        throw new Failure(e.getClass().getSimpleName(), true, String.valueOf(e.getMessage()), e);
      }
    }

    @Override
    public List<List<Object>> query(String sql) throws Failure {
      List<List<Object>> rows = new ArrayList<>();
      try (ArrowReader reader = engine.prepare(sql).execute(allocator)) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          for (int r = 0; r < root.getRowCount(); r++) {
            List<Object> row = new ArrayList<>();
            for (FieldVector v : root.getFieldVectors()) {
              Object o = v.isNull(r) ? null : v.getObject(r);
              row.add(o instanceof Text t ? t.toString() : o);
            }
            rows.add(row);
          }
        }
      } catch (SqlException e) {
        throw new Failure(e.kind().name(), false, e.getMessage(), e);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (RuntimeException e) {
        throw new Failure(e.getClass().getSimpleName(), true, String.valueOf(e.getMessage()), e);
      }
      return rows;
    }

    @Override
    public void close() {
    }
  }
}
