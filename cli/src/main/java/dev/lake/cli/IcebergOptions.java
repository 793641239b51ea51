package dev.lake.cli;

import dev.lake.iceberg.IcebergSettings;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import picocli.CommandLine.Option;

/**
 * Options {@code --iceberg-*} of {@code lake dev} and {@code lake query}: the external Iceberg
 * REST catalog served read-only as the SQL catalog {@code iceberg}. Nothing is asked of the
 * catalog at start; an unreachable one fails {@code iceberg} queries with UNAVAILABLE only.
 */
final class IcebergOptions {

  @Option(names = "--iceberg-uri", paramLabel = "URI",
      description = "Iceberg REST catalog (http(s)://host:port/) served read-only as catalog"
          + " 'iceberg' (default: none).")
  String uri;

  @Option(names = "--iceberg-warehouse", paramLabel = "NAME",
      description = "Warehouse to ask the Iceberg catalog for, if it serves several.")
  String warehouse;

  @Option(names = "--iceberg-token", paramLabel = "TOKEN",
      defaultValue = "${env:LAKE_ICEBERG_TOKEN}",
      description = "Bearer token for the Iceberg catalog (default: $LAKE_ICEBERG_TOKEN).")
  String token;

  @Option(names = "--iceberg-credential", paramLabel = "ID:SECRET",
      defaultValue = "${env:LAKE_ICEBERG_CREDENTIAL}",
      description = "OAuth2 client credential exchanged for tokens"
          + " (default: $LAKE_ICEBERG_CREDENTIAL).")
  String credential;

  @Option(names = "--iceberg-property", paramLabel = "KEY=VALUE",
      description = "A catalog or FileIO property, repeatable; for an S3 warehouse e.g."
          + " s3.endpoint=http://127.0.0.1:9000, s3.access-key-id=..., s3.secret-access-key=...,"
          + " s3.path-style-access=true, client.region=us-east-1.")
  Map<String, String> properties;

  @Option(names = "--iceberg-cache-ttl", paramLabel = "DURATION",
      converter = QueryLimits.DurationConverter.class,
      description = "How long Iceberg table metadata and listings are reused (default: 10s).")
  Duration cacheTtl;

  /**
   * The catalog these options name, or empty without {@code --iceberg-uri}.
   *
   * @throws IllegalArgumentException naming the option that is malformed, or given without
   *     {@code --iceberg-uri}
   */
  Optional<IcebergSettings> settings() {
    if (blank(uri)) {
      for (Map.Entry<String, Object> other : Map.<String, Object>of(
          "--iceberg-warehouse", Optional.ofNullable(warehouse),
          "--iceberg-property", Optional.ofNullable(properties),
          "--iceberg-cache-ttl", Optional.ofNullable(cacheTtl)).entrySet()) {
        if (((Optional<?>) other.getValue()).isPresent()) {
          throw new IllegalArgumentException(other.getKey() + " needs --iceberg-uri");
        }
      }
      return Optional.empty();
    }
    URI parsed;
    try {
      parsed = URI.create(uri.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--iceberg-uri must be an http(s) URL, got " + uri);
    }
    if (parsed.getHost() == null) {
      throw new IllegalArgumentException("--iceberg-uri must be an http(s) URL, got " + uri);
    }
    IcebergSettings settings;
    try {
      settings = IcebergSettings.of(parsed);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--iceberg-uri must be an http(s) URL, got " + uri);
    }
    if (!blank(token) && !blank(credential)) {
      throw new IllegalArgumentException("--iceberg-token and --iceberg-credential are exclusive:"
          + " give one");
    }
    if (!blank(credential) && !credential.contains(":")) {
      throw new IllegalArgumentException("--iceberg-credential must be ID:SECRET");
    }
    Map<String, String> more = new TreeMap<>();
    if (properties != null) {
      properties.forEach((key, value) -> {
        if (blank(key) || value == null) {
          throw new IllegalArgumentException("--iceberg-property must be KEY=VALUE, got " + key);
        }
        more.put(key.trim(), value);
      });
    }
    Duration ttl = cacheTtl == null ? settings.cacheTtl() : cacheTtl;
    return Optional.of(new IcebergSettings(settings.uri(),
        blank(warehouse) ? Optional.empty() : Optional.of(warehouse.trim()),
        blank(token) ? Optional.empty() : Optional.of(token.trim()),
        blank(credential) ? Optional.empty() : Optional.of(credential.trim()),
        more, ttl, settings.cacheEntries()));
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }
}
