package dev.lake.engine.log;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3-compatible server (s3proxy over a directory) on a free loopback port, with AWS V4
 * authentication and path-style requests. Tests start one, point the log engine at it through
 * {@link #engineProperties()} and stop it in all cases.
 */
final class S3Server implements AutoCloseable {

  static final String ACCESS_KEY = "lake-test";
  static final String SECRET_KEY = "lake-test-secret";

  private final S3Proxy proxy;
  private final BlobStore blobs;
  private final URI endpoint;

  private S3Server(S3Proxy proxy, BlobStore blobs, URI endpoint) {
    this.proxy = proxy;
    this.blobs = blobs;
    this.endpoint = endpoint;
  }

  /** Starts a server storing objects under {@code dir}, with {@code bucket} created. */
  static S3Server start(Path dir, String bucket) throws Exception {
    Properties p = new Properties();
    p.setProperty("jclouds.filesystem.basedir", dir.toString());
    BlobStore blobs = BlobStores.create("filesystem-nio2", p);
    S3Proxy proxy = S3Proxy.builder()
        .blobStore(blobs)
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .endpoint(URI.create("http://127.0.0.1:0"))
        .build();
    proxy.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!"STARTED".equals(proxy.getState())) {
      if (System.nanoTime() > deadline) {
        proxy.stop();
        throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
      }
      Thread.sleep(10);
    }
    S3Server server = new S3Server(proxy, blobs, URI.create("http://127.0.0.1:" + proxy.getPort()));
    try (S3Client client = server.settings().client()) {
      client.createBucket(b -> b.bucket(bucket));
    }
    return server;
  }

  URI endpoint() {
    return endpoint;
  }

  Map<String, String> engineProperties() {
    return Map.of(
        "log.s3.endpoint", endpoint.toString(),
        "log.s3.region", "us-east-1",
        "log.s3.path-style", "true",
        "log.s3.access-key-id", ACCESS_KEY,
        "log.s3.secret-access-key", SECRET_KEY);
  }

  dev.lake.engine.log.store.S3Settings settings() {
    return dev.lake.engine.log.store.S3Settings.from(engineProperties());
  }

  @Override
  public void close() {
    try {
      proxy.stop();
    } catch (Exception e) {
      throw new IllegalStateException("s3proxy did not stop", e);
    } finally {
      blobs.close();
    }
  }
}
