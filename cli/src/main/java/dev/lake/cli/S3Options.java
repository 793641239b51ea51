package dev.lake.cli;

import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Option;

/**
 * How {@code lake metasrv} and {@code lake query} reach an S3 warehouse: endpoint, region and
 * static credentials, turned into the engines' object-store properties ({@code log.s3.*} and
 * {@code lance.storage.*}). A custom endpoint (S3Proxy, MinIO) gets path-style requests and
 * must come with credentials; without an endpoint the AWS default credentials chain applies.
 */
final class S3Options {

  @Option(names = "--s3-endpoint",
      description = "S3-compatible endpoint URL (S3Proxy, MinIO); path-style requests (default: AWS).")
  String endpoint;

  @Option(names = "--s3-region", defaultValue = "${env:AWS_REGION}",
      description = "S3 signing region (default: $AWS_REGION, else us-east-1).")
  String region;

  @Option(names = "--s3-access-key", defaultValue = "${env:AWS_ACCESS_KEY_ID}",
      description = "S3 access key (default: $AWS_ACCESS_KEY_ID).")
  String accessKey;

  @Option(names = "--s3-secret-key", defaultValue = "${env:AWS_SECRET_ACCESS_KEY}",
      description = "S3 secret key, with the access key (default: $AWS_SECRET_ACCESS_KEY).")
  String secretKey;

  /**
   * The engine properties for these options.
   *
   * @throws IllegalArgumentException naming the option that is malformed or missing
   */
  Map<String, String> engineProperties() {
    Map<String, String> properties = new TreeMap<>();
    if (blank(accessKey) != blank(secretKey)) {
      throw new IllegalArgumentException("--s3-access-key and --s3-secret-key (or AWS_ACCESS_KEY_ID"
          + " and AWS_SECRET_ACCESS_KEY) must be given together");
    }
    String signingRegion = blank(region) ? "us-east-1" : region.trim();
    properties.put("log.s3.region", signingRegion);
    properties.put("lance.storage.aws_region", signingRegion);
    if (endpoint != null) {
      URI uri;
      try {
        uri = URI.create(endpoint.trim());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--s3-endpoint must be an http(s) URL, got " + endpoint);
      }
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
        throw new IllegalArgumentException("--s3-endpoint must be an http(s) URL, got " + endpoint);
      }
      if (blank(accessKey)) {
        throw new IllegalArgumentException("--s3-endpoint " + endpoint + " needs credentials:"
            + " --s3-access-key and --s3-secret-key, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
      }
      properties.put("log.s3.endpoint", uri.toString());
      properties.put("log.s3.path-style", "true");
      properties.put("lance.storage.aws_endpoint", uri.toString());
      properties.put("lance.storage.aws_virtual_hosted_style_request", "false");
      if (scheme.equals("http")) {
        properties.put("lance.storage.allow_http", "true");
      }
    }
    if (!blank(accessKey)) {
      properties.put("log.s3.access-key-id", accessKey);
      properties.put("log.s3.secret-access-key", secretKey);
      properties.put("lance.storage.aws_access_key_id", accessKey);
      properties.put("lance.storage.aws_secret_access_key", secretKey);
    }
    return Map.copyOf(properties);
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }
}
