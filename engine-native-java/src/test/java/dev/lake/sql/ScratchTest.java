package dev.lake.sql;

import java.nio.file.Path;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScratchTest {
  @TempDir
  Path dir;

  @Test
  void run() throws Exception {
    try (RootAllocator allocator = new RootAllocator();
        LogTablesCatalog catalog = new LogTablesCatalog(dir)) {
      SqlEngine engine = new SqlEngine(catalog, Long.MAX_VALUE, 2);
      for (String sql : System.getProperty("sqls").split(";;")) {
        if (sql.startsWith("CREATE") || sql.startsWith("INSERT")) {
          engine.executeUpdate(sql, allocator);
          continue;
        }
        try (ArrowReader r = engine.prepare(sql).execute(allocator)) {
          while (r.loadNextBatch()) {
            System.out.println("OUT " + r.getVectorSchemaRoot().contentToTSVString());
          }
        } catch (Throwable t) {
          t.printStackTrace(System.out);
        }
      }
    }
  }
}
