package dev.lake.engine.log;

import dev.lake.engine.TableEngine;
import java.util.Map;

/** The engine contract on a table written with {@code log.compression=fast} (encodings only). */
class FastLogEngineContractTest extends LocalLogEngineContractTest {

  @Override
  protected TableEngine newEngine() {
    return new LogEngineFactory().create(Map.of("log.block.rows", "512", "log.checkpoint.interval", "4",
        "log.compression", "fast"));
  }
}
