package dev.lake.cli;

import dev.lake.engine.TableLocation;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The {@code storage_options} the Lance Namespace REST API hands stock Lance clients with an
 * object-store table location: the {@code lance} engine's own object-store properties
 * ({@code lance.storage.<option>}, docs/lance.md), prefix stripped, so a client reaches the data
 * the way lake does. {@code allow_http} is added for a plain-HTTP endpoint (without it every read
 * fails with a TLS error that looks like a credential problem). Local locations get none. The
 * credentials are the engine's static ones; scoped, expiring credentials need an STS and are not
 * vended yet.
 */
final class LanceStorageOptions {

  static final String PREFIX = "lance.storage.";

  private LanceStorageOptions() {}

  static Function<TableLocation, Map<String, String>> of(Map<String, String> engineProperties) {
    Map<String, String> options = new TreeMap<>();
    engineProperties.forEach((key, value) -> {
      if (key.startsWith(PREFIX)) {
        options.put(key.substring(PREFIX.length()), value);
      }
    });
    String endpoint = options.get("aws_endpoint");
    if (endpoint != null && endpoint.toLowerCase(Locale.ROOT).startsWith("http://")) {
      options.putIfAbsent("allow_http", "true");
    }
    Map<String, String> fixed = Map.copyOf(options);
    return location -> location.isLocal() ? Map.of() : fixed;
  }
}
