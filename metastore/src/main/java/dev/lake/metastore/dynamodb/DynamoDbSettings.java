package dev.lake.metastore.dynamodb;

import dev.lake.metastore.MetaStoreException;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Where the DynamoDB metastore lives: the table, its region, an optional endpoint (a test server
 * such as dynalite, or a VPC endpoint), and optional static credentials; without them the AWS
 * default credential chain is used (environment, profile, container or instance role).
 */
public record DynamoDbSettings(
    Optional<URI> endpoint, String region, String table, Optional<String> accessKey,
    Optional<String> secretKey) {

  public DynamoDbSettings {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(accessKey, "accessKey");
    Objects.requireNonNull(secretKey, "secretKey");
    if (region == null || region.isBlank()) {
      throw new IllegalArgumentException("a DynamoDB region is required");
    }
    if (table == null || !table.matches("[A-Za-z0-9_.-]{3,255}")) {
      throw new IllegalArgumentException("invalid DynamoDB table name '" + table
          + "': 3..255 characters of letters, digits, '_', '-' and '.'");
    }
    if (accessKey.isPresent() != secretKey.isPresent()) {
      throw new IllegalArgumentException(
          "give both an access key and a secret key, or neither (to use the default chain)");
    }
  }

  /** Settings for a test server at {@code endpoint} with static credentials. */
  public static DynamoDbSettings forEndpoint(URI endpoint, String region, String table,
      String accessKey, String secretKey) {
    return new DynamoDbSettings(Optional.of(endpoint), region, table, Optional.of(accessKey),
        Optional.of(secretKey));
  }

  /** Where the store is, for messages: the endpoint (or the region's) and the table. */
  public String describe() {
    return "table '" + table + "' at " + endpoint.map(URI::toString).orElse("region " + region);
  }

  DynamoDbClient newClient() {
    AwsCredentialsProvider credentials = accessKey.isPresent()
        ? StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey.get(),
            secretKey.orElseThrow()))
        : DefaultCredentialsProvider.builder().build();
    try {
      var builder = DynamoDbClient.builder()
          .region(Region.of(region))
          .credentialsProvider(credentials)
          .httpClient(UrlConnectionHttpClient.builder()
              .connectionTimeout(Duration.ofSeconds(5))
              .socketTimeout(Duration.ofSeconds(30))
              .build())
          .overrideConfiguration(ClientOverrideConfiguration.builder()
              .apiCallTimeout(Duration.ofSeconds(60))
              .build());
      endpoint.ifPresent(builder::endpointOverride);
      return builder.build();
    } catch (RuntimeException e) {
      throw new MetaStoreException("cannot create a DynamoDB client for " + describe() + ": "
          + e.getMessage(), e);
    }
  }
}
