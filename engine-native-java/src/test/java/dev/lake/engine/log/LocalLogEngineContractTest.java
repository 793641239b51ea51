package dev.lake.engine.log;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineContract;
import dev.lake.engine.TableLocation;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.io.TempDir;

/** The engine contract on local disk, with small blocks and segments so scans span many. */
class LocalLogEngineContractTest extends TableEngineContract {

  @TempDir
  Path dir;

  @Override
  protected TableEngine newEngine() {
    return new LogEngineFactory().create(Map.of("log.block.rows", "512", "log.checkpoint.interval", "4"));
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
