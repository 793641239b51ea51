package dev.lake.iceberg;

import java.net.URI;
import java.nio.file.Files;
import java.util.Map;
import org.apache.iceberg.rest.LoopbackRestCatalog;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;
import org.junit.jupiter.api.AfterEach;

/** Every proof of {@link IcebergFederationTest} again, with the warehouse in S3 (S3Proxy in-process). */
class IcebergS3WarehouseTest extends IcebergFederationTest {
  static final String ACCESS_KEY = "lake-test-access";
  static final String SECRET_KEY = "lake-test-secret-key";

  S3Proxy proxy;

  @Override
  LoopbackRestCatalog startServer() throws Exception {
    java.nio.file.Path root = Files.createDirectories(dir.resolve("s3"));
    FilesystemNio2BlobStore store = new FilesystemNio2BlobStore(root.toString());
    store.createContainer("warehouse");
    proxy = S3Proxy.builder().blobStore(store)
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        // S3Proxy refuses headers it does not know (501) unless told to ignore them, and vended
        // session credentials add x-amz-security-token (still signed and checked).
        .ignoreUnknownHeaders(true)
        .endpoint(URI.create("http://127.0.0.1:0")).build();
    proxy.start();
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!"STARTED".equals(proxy.getState())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
      }
      Thread.sleep(10);
    }
    return serve("s3://warehouse/wh", clientIo());
  }

  /** The catalog server over the S3 warehouse, reading it through {@code io} (with the keys). */
  LoopbackRestCatalog serve(String warehouse, Map<String, String> io) throws Exception {
    return LoopbackRestCatalog.start(warehouse, io);
  }

  @Override
  Map<String, String> clientIo() {
    Map<String, String> client = new java.util.HashMap<>(s3());
    client.put("s3.access-key-id", ACCESS_KEY);
    client.put("s3.secret-access-key", SECRET_KEY);
    client.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    client.put("http-client.type", "urlconnection");
    return client;
  }

  /** Only S3 settings: lake picks S3FileIO by itself. */
  @Override
  Map<String, String> io() {
    Map<String, String> lake = new java.util.HashMap<>(s3());
    lake.put("s3.access-key-id", ACCESS_KEY);
    lake.put("s3.secret-access-key", SECRET_KEY);
    return lake;
  }

  /** How to reach S3Proxy, without keys. */
  Map<String, String> s3() {
    return Map.of(
        "s3.endpoint", "http://127.0.0.1:" + proxy.getPort(),
        "s3.path-style-access", "true",
        "client.region", "us-east-1");
  }

  @AfterEach
  void stopS3() throws Exception {
    if (proxy != null) {
      proxy.stop();
    }
  }
}
