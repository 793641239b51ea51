package dev.lake.engine.lance;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineContract;
import dev.lake.engine.TableLocation;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.io.TempDir;

/** The engine contract suite on local disk. */
class LanceLocalContractTest extends TableEngineContract {

  @TempDir Path dir;

  @Override
  protected TableEngine newEngine() {
    return new LanceEngineFactory().create(Map.of());
  }

  @Override
  protected TableLocation freshLocation() {
    return TableLocation.of(dir.resolve("t-" + UUID.randomUUID()));
  }

  @Override
  protected boolean supportsMaintenance() {
    return true;
  }
}
