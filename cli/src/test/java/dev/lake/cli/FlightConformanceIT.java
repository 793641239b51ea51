package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;

/** The Flight SQL conformance suite against a real {@code lake dev} process, plaintext. */
class FlightConformanceIT extends FlightConformanceSuite {

  private LakeProcess lake;

  @Override
  Endpoint startServer(Path dataDir) throws Exception {
    lake = LakeProcess.dev(dataDir);
    return new Endpoint(lake.port(), null, null);
  }

  @Override
  void stopServer() throws Exception {
    if (lake != null) {
      // The server's log, for failures that the client sees only as a status.
      Files.write(Path.of("target", "FlightConformanceIT-lake.log"), lake.output());
      assertEquals(143, lake.terminate(), "lake dev stops cleanly on SIGTERM: " + lake.output());
      lake.close();
    }
  }
}
