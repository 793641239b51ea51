package dev.lake.engine.log;

import dev.lake.engine.EngineException;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import java.util.Map;

/**
 * Makes the {@code log} engine. Properties (all optional):
 *
 * <ul>
 *   <li>{@code log.block.rows}: rows per block, the unit of statistics and of a read batch
 *       (default 65536);
 *   <li>{@code log.segment.bytes}: a segment is closed once it reaches this size (default 256
 *       MiB);
 *   <li>{@code log.commit.retries}: how many times an append retries after another writer won
 *       its version (default 100).
 * </ul>
 */
public final class LogEngineFactory implements TableEngineFactory {

  public static final String NAME = "log";

  @Override
  public String name() {
    return NAME;
  }

  /** @throws EngineException if a property is not a positive integer, naming it */
  @Override
  public TableEngine create(Map<String, String> properties) {
    int blockRows = (int) positive(properties, "log.block.rows", 65_536, Integer.MAX_VALUE / 16);
    long segmentBytes = positive(properties, "log.segment.bytes", 256L << 20, Long.MAX_VALUE);
    int retries = (int) positive(properties, "log.commit.retries", 100, Integer.MAX_VALUE);
    return new LogEngine(new LogEngine.Settings(blockRows, segmentBytes, retries));
  }

  private static long positive(Map<String, String> properties, String key, long fallback, long max) {
    String text = properties.get(key);
    if (text == null) {
      return fallback;
    }
    try {
      long value = Long.parseLong(text.trim());
      if (value > 0 && value <= max) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below with the offending value
    }
    throw new EngineException(null, key + " must be an integer in 1.." + max + ", got '" + text + "'");
  }
}
