package dev.lake.engine.log;

import dev.lake.engine.EngineException;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.log.segment.Compression;
import dev.lake.engine.log.store.S3Settings;
import java.time.Duration;
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
 *       its version (default 100);
 *   <li>{@code log.checkpoint.interval}: a checkpoint is written every this many versions
 *       (default 100), so opening reads at most that many entries after it;
 *   <li>{@code log.orphan.grace.seconds}: expiry deletes a segment no version ever named only once
 *       it is this old (default 3600), so an append still writing is never robbed; 0 is for
 *       tables with a single writer that runs maintenance itself;
 *   <li>{@code log.read.map.bytes}: how many bytes of local segments an open table keeps
 *       memory-mapped for reading, least recently used out first (default 4 GiB); 0 reads by
 *       copying;
 *   <li>{@code log.compression}: how segments written from now on store their chunks:
 *       {@code none} (raw Arrow buffers, read mapped zero-copy; the default), {@code fast}
 *       (lightweight encodings where they pay) or {@code small} (encodings and zstd). Segments
 *       of every setting are read alike, so it may change at any time;
 *   <li>{@code log.s3.*}: S3 endpoint, region, path-style and credentials, see {@link S3Settings}.
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
    int checkpointInterval = (int) positive(properties, "log.checkpoint.interval", 100, Integer.MAX_VALUE);
    String grace = properties.getOrDefault("log.orphan.grace.seconds", "3600");
    long graceSeconds = "0".equals(grace.trim()) ? 0
        : positive(properties, "log.orphan.grace.seconds", 3600, Long.MAX_VALUE / 1_000_000_000L);
    String map = properties.getOrDefault("log.read.map.bytes", "4294967296");
    long mapBytes = "0".equals(map.trim()) ? 0
        : positive(properties, "log.read.map.bytes", 4L << 30, Long.MAX_VALUE);
    Compression compression;
    try {
      compression = Compression.parse(properties.getOrDefault("log.compression", "none"));
    } catch (IllegalArgumentException e) {
      throw new EngineException(null, "log." + e.getMessage());
    }
    return new LogEngine(new LogEngine.Settings(blockRows, segmentBytes, retries, checkpointInterval,
        Duration.ofSeconds(graceSeconds), mapBytes, S3Settings.from(properties), compression));
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
