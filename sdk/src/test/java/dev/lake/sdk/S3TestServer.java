package dev.lake.sdk;

import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3Proxy over a directory on a free loopback port, AWS V4 authentication, path-style; its
 * multipart parts go through a {@link PartGate}.
 */
final class S3TestServer implements AutoCloseable {

  static final StageCredentials CREDENTIALS = StageCredentials.of("lake-test", "lake-test-secret");

  private final S3Proxy proxy;
  private final BlobStore blobs;
  final URI endpoint;
  /** The store's multipart parts: counted, and one can be held mid-upload. */
  final PartGate parts;

  private S3TestServer(S3Proxy proxy, PartGate blobs) {
    this.proxy = proxy;
    this.blobs = blobs;
    this.parts = blobs;
    this.endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
  }

  static S3TestServer start(Path dir, String bucket) throws Exception {
    Properties p = new Properties();
    p.setProperty("jclouds.filesystem.basedir", dir.toString());
    PartGate blobs = new PartGate(BlobStores.create("filesystem-nio2", p));
    S3Proxy proxy = S3Proxy.builder().blobStore(blobs)
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, CREDENTIALS.accessKeyId(),
            CREDENTIALS.secretAccessKey())
        .endpoint(URI.create("http://127.0.0.1:0")).build();
    proxy.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!"STARTED".equals(proxy.getState())) {
      if (System.nanoTime() > deadline) {
        proxy.stop();
        throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
      }
      Thread.sleep(10);
    }
    S3TestServer server = new S3TestServer(proxy, blobs);
    try (S3Client client = server.client()) {
      client.createBucket(b -> b.bucket(bucket));
    }
    return server;
  }

  /** A plain AWS SDK client of this server, for tampering with and inspecting the store. */
  S3Client client() {
    return S3Client.builder().httpClientBuilder(UrlConnectionHttpClient.builder())
        .region(Region.US_EAST_1).forcePathStyle(true).endpointOverride(endpoint)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
            CREDENTIALS.accessKeyId(), CREDENTIALS.secretAccessKey())))
        .build();
  }

  StageDescriptor descriptor(String root) {
    return new StageDescriptor("acme", URI.create(root), endpoint, "us-east-1", true);
  }

  @Override
  public void close() throws Exception {
    try {
      proxy.stop();
    } finally {
      blobs.close();
    }
  }
}
