package dev.lake.engine.lance;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineContract;
import dev.lake.engine.TableLocation;
import java.net.URI;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The engine contract suite on S3 (S3Proxy on loopback). */
class LanceS3ContractTest extends TableEngineContract {

  @TempDir static Path blobs;
  static S3ProxyServer s3;

  @BeforeAll
  static void startS3() throws Exception {
    s3 = new S3ProxyServer(blobs);
  }

  @AfterAll
  static void stopS3() throws Exception {
    s3.close();
  }

  @Override
  protected TableEngine newEngine() {
    return new LanceEngineFactory().create(s3.engineProperties());
  }

  @Override
  protected TableLocation freshLocation() {
    return new TableLocation(URI.create("s3://" + S3ProxyServer.BUCKET + "/contract/t-" + UUID.randomUUID()));
  }

  @Override
  protected boolean supportsMaintenance() {
    return true;
  }
}
