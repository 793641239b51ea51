package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code lake metasrv --worker-threads}: a bad count is refused before anything is opened. */
class MetasrvWorkerThreadsTest {

  @TempDir Path dir;

  @Test
  void aWorkerCountBelowOneOrNotANumberIsRefusedNamingTheOption() {
    for (String bad : new String[] {"0", "-3", "lots"}) {
      StringWriter err = new StringWriter();
      CommandLine lake = new CommandLine(new Lake());
      lake.setErr(new PrintWriter(err, true));
      Path data = dir.resolve("data-" + bad);
      int exit = lake.execute("metasrv", "--data-dir", data.toString(), "--worker-threads", bad);
      assertEquals(2, exit, err.toString());
      assertTrue(err.toString().contains("--worker-threads"), err.toString());
      assertFalse(Files.exists(data), "a refused start created " + data);
    }
  }
}
