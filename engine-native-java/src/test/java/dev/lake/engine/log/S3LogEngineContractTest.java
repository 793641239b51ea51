package dev.lake.engine.log;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineContract;
import dev.lake.engine.TableLocation;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The engine contract on S3: a real S3-compatible server (s3proxy) on loopback, the AWS SDK v2
 * client, {@code If-None-Match: *} for every commit.
 */
class S3LogEngineContractTest extends TableEngineContract {

  private static final String BUCKET = "lake-contract";
  private static Path storage;
  private static S3Server server;

  @BeforeAll
  static void startServer() throws Exception {
    storage = Files.createTempDirectory("lake-s3-contract");
    server = S3Server.start(storage, BUCKET);
  }

  @AfterAll
  static void stopServer() throws Exception {
    try {
      if (server != null) {
        server.close();
      }
    } finally {
      LogTestFiles.deleteTree(storage);
    }
  }

  @Override
  protected TableEngine newEngine() {
    Map<String, String> properties = new HashMap<>(server.engineProperties());
    properties.put("log.block.rows", "512");
    properties.put("log.checkpoint.interval", "4");
    return new LogEngineFactory().create(properties);
  }

  @Override
  protected TableLocation freshLocation() {
    return new TableLocation(URI.create("s3://" + BUCKET + "/tables/t-" + UUID.randomUUID()));
  }

  @Override
  protected boolean supportsMaintenance() {
    return true;
  }
}
