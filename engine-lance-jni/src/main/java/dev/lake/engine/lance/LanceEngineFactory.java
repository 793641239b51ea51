package dev.lake.engine.lance;

import dev.lake.engine.EngineException;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;

/**
 * Makes the {@code lance} engine. Properties (all optional):
 *
 * <ul>
 *   <li>{@code lance.storage.<option>}: passed to Lance's object store as storage option {@code
 *       <option>}, for example {@code lance.storage.aws_endpoint}, {@code
 *       lance.storage.aws_access_key_id}, {@code lance.storage.aws_secret_access_key}, {@code
 *       lance.storage.aws_region}, {@code lance.storage.allow_http}, {@code
 *       lance.storage.aws_virtual_hosted_style_request};
 *   <li>{@code lance.commit.retries}: how many times Lance rebases an append that lost the race
 *       for its version (default 100);
 *   <li>{@code lance.file.max-rows}: rows per data file an append writes (default: Lance's);
 *   <li>{@code lance.cache.bytes}: size of the shared metadata and index caches (default 256 MiB
 *       each).
 * </ul>
 */
public final class LanceEngineFactory implements TableEngineFactory {

  public static final String NAME = "lance";
  static final String STORAGE_PREFIX = "lance.storage.";

  @Override
  public String name() {
    return NAME;
  }

  /**
   * Validates the properties and returns the engine without touching Lance's native library: the
   * library is loaded (and its temporary copy made and removed, see {@link LanceNative}) by the
   * first table operation, which throws {@link EngineException} if it cannot load.
   *
   * @throws EngineException if a property is invalid, naming it
   */
  @Override
  public TableEngine create(Map<String, String> properties) {
    Map<String, String> storage = new HashMap<>();
    properties.forEach((k, v) -> {
      if (k.startsWith(STORAGE_PREFIX) && k.length() > STORAGE_PREFIX.length()) {
        storage.put(k.substring(STORAGE_PREFIX.length()), v);
      }
    });
    int retries = (int) positive(properties, "lance.commit.retries", 100, 10_000);
    int maxRows = (int) positive(properties, "lance.file.max-rows", 0, Integer.MAX_VALUE);
    long cacheBytes = positive(properties, "lance.cache.bytes", 256L << 20, Long.MAX_VALUE);
    LanceStore.Settings settings = new LanceStore.Settings(storage, retries, maxRows, cacheBytes);
    return new LanceEngine(new LanceStore(new RootAllocator(), settings));
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
