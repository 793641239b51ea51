package dev.lake.engine.log.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

class S3SettingsTest {

  /** Enough attempts to get past every pooled connection a server may have closed. */
  @Test
  void aRequestIsAttemptedSixTimesBeforeItFails() {
    S3Settings settings = S3Settings.from(Map.of("log.s3.endpoint", "http://127.0.0.1:9",
        "log.s3.access-key-id", "id", "log.s3.secret-access-key", "secret"));
    try (S3Client client = settings.client()) {
      assertEquals(6, client.serviceClientConfiguration().overrideConfiguration().retryStrategy()
          .orElseThrow().maxAttempts());
    }
  }
}
