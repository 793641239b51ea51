package dev.lake.engine.log.store;

import dev.lake.engine.EngineException;
import java.net.URI;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The S3 settings of the log engine, from its properties:
 *
 * <ul>
 *   <li>{@code log.s3.endpoint}: endpoint URI for S3-compatible servers (default: AWS);
 *   <li>{@code log.s3.region}: signing region (default {@code us-east-1});
 *   <li>{@code log.s3.path-style}: {@code true} for path-style requests (default false);
 *   <li>{@code log.s3.access-key-id} and {@code log.s3.secret-access-key}: static credentials,
 *       both or neither (default: the AWS default credentials chain).
 * </ul>
 */
public record S3Settings(URI endpoint, String region, boolean pathStyle, String accessKeyId, String secretAccessKey) {

  /**
   * Attempts per request. Against s3proxy the SDK's three attempts all failed twice in a day of
   * test runs ("Error writing request body to server", within 70 ms), most likely on pooled
   * connections the server had closed: {@code HttpURLConnection} cannot resend a streamed body on
   * one, and it keeps up to five per server. Retried puts stay safe: they are conditional, and a
   * 412 on a retry is checked to be our own earlier attempt.
   */
  static final int MAX_ATTEMPTS = 6;

  public static S3Settings from(Map<String, String> properties) {
    String endpoint = properties.get("log.s3.endpoint");
    URI uri = null;
    if (endpoint != null) {
      try {
        uri = URI.create(endpoint.trim());
      } catch (IllegalArgumentException e) {
        throw new EngineException(null, "log.s3.endpoint must be a URI, got '" + endpoint + "'");
      }
      if (uri.getScheme() == null || uri.getHost() == null) {
        throw new EngineException(null, "log.s3.endpoint must be an absolute http(s) URI, got '" + endpoint + "'");
      }
    }
    String pathStyle = properties.getOrDefault("log.s3.path-style", "false").trim();
    if (!pathStyle.equals("true") && !pathStyle.equals("false")) {
      throw new EngineException(null, "log.s3.path-style must be true or false, got '" + pathStyle + "'");
    }
    String id = properties.get("log.s3.access-key-id");
    String secret = properties.get("log.s3.secret-access-key");
    if ((id == null) != (secret == null)) {
      throw new EngineException(null,
          "log.s3.access-key-id and log.s3.secret-access-key must be given together");
    }
    return new S3Settings(uri, properties.getOrDefault("log.s3.region", "us-east-1").trim(),
        Boolean.parseBoolean(pathStyle), id, secret);
  }

  /**
   * A client over the JDK's {@code HttpURLConnection}: synchronous like every caller here, and it
   * brings no second Netty or Apache HTTP stack next to Arrow's. Checksums are computed only when
   * an operation requires them, since the log format carries its own CRC32C and S3-compatible
   * servers differ in their support of trailing checksums.
   */
  public S3Client client() {
    AwsCredentialsProvider credentials = accessKeyId == null
        ? DefaultCredentialsProvider.builder().build()
        : StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId, secretAccessKey));
    var builder = S3Client.builder()
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .region(Region.of(region))
        .credentialsProvider(credentials)
        .forcePathStyle(pathStyle)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(o -> o.retryStrategy(r -> r.maxAttempts(MAX_ATTEMPTS)));
    if (endpoint != null) {
      builder.endpointOverride(endpoint);
    }
    return builder.build();
  }

  @Override
  public String toString() {
    // never print the secret
    return "S3Settings[endpoint=" + endpoint + ", region=" + region + ", pathStyle=" + pathStyle + "]";
  }
}
