package dev.lake.iceberg;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How to reach one Iceberg REST catalog.
 *
 * @param uri the catalog's base URI ({@code http://host:8181/})
 * @param warehouse the warehouse to ask the catalog for, if it serves several
 * @param token a bearer token sent on every request
 * @param credential an OAuth2 client credential {@code id:secret} exchanged for tokens
 * @param properties further catalog and FileIO properties (for S3: {@code s3.endpoint},
 *     {@code s3.access-key-id}, {@code s3.secret-access-key}, {@code s3.path-style-access},
 *     {@code client.region}); they win over the ones derived from the other fields
 * @param cacheTtl how long table metadata and listings are reused before the catalog is asked again
 * @param cacheEntries at most this many cached answers
 */
public record IcebergSettings(URI uri, Optional<String> warehouse, Optional<String> token,
    Optional<String> credential, Map<String, String> properties, Duration cacheTtl, int cacheEntries) {

  public IcebergSettings {
    Objects.requireNonNull(uri, "uri");
    if (!uri.isAbsolute() || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
      throw new IllegalArgumentException("the Iceberg catalog URI must be http(s)://..., got " + uri);
    }
    Objects.requireNonNull(warehouse, "warehouse");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(credential, "credential");
    properties = Map.copyOf(properties);
    if (cacheTtl.isNegative() || cacheEntries < 0) {
      throw new IllegalArgumentException("negative cache bounds: " + cacheTtl + ", " + cacheEntries);
    }
  }

  /** A catalog at {@code uri} with no credentials, metadata cached for 10 s, 1000 entries. */
  public static IcebergSettings of(URI uri) {
    return new IcebergSettings(uri, Optional.empty(), Optional.empty(), Optional.empty(), Map.of(),
        Duration.ofSeconds(10), 1000);
  }

  public IcebergSettings withWarehouse(String name) {
    return new IcebergSettings(uri, Optional.of(name), token, credential, properties, cacheTtl, cacheEntries);
  }

  public IcebergSettings withProperties(Map<String, String> more) {
    java.util.Map<String, String> all = new java.util.HashMap<>(properties);
    all.putAll(more);
    return new IcebergSettings(uri, warehouse, token, credential, all, cacheTtl, cacheEntries);
  }

  public IcebergSettings withCache(Duration ttl, int entries) {
    return new IcebergSettings(uri, warehouse, token, credential, properties, ttl, entries);
  }
}
