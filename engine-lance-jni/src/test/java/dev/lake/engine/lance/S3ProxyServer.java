package dev.lake.engine.lance;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;

/** A real S3 endpoint for tests: S3Proxy in-process on a free loopback port, over a directory. */
public final class S3ProxyServer implements AutoCloseable {

  public static final String ACCESS_KEY = "lake-test-access";
  public static final String SECRET_KEY = "lake-test-secret-key";
  public static final String BUCKET = "lake";

  private final S3Proxy proxy;

  public S3ProxyServer(Path root) throws Exception {
    FilesystemNio2BlobStore store = new FilesystemNio2BlobStore(root.toString());
    store.createContainer(BUCKET);
    proxy = S3Proxy.builder()
        .blobStore(store)
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .endpoint(URI.create("http://127.0.0.1:0"))
        .build();
    proxy.start();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!"STARTED".equals(proxy.getState())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
      }
      Thread.sleep(10);
    }
  }

  public String endpoint() {
    return "http://127.0.0.1:" + proxy.getPort();
  }

  /** Engine properties that point Lance's object store at this server. */
  public Map<String, String> engineProperties() {
    return Map.of(
        "lance.storage.aws_endpoint", endpoint(),
        "lance.storage.aws_access_key_id", ACCESS_KEY,
        "lance.storage.aws_secret_access_key", SECRET_KEY,
        "lance.storage.aws_region", "us-east-1",
        "lance.storage.allow_http", "true",
        "lance.storage.aws_virtual_hosted_style_request", "false");
  }

  /** The same options as Lance storage options, for a stock Lance reader. */
  public Map<String, String> storageOptions() {
    Map<String, String> out = new java.util.HashMap<>();
    engineProperties().forEach((k, v) -> out.put(k.substring(LanceEngineFactory.STORAGE_PREFIX.length()), v));
    return out;
  }

  @Override
  public void close() throws Exception {
    proxy.stop();
  }
}
