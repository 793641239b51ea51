package dev.lake.sdk;

import dev.lake.engine.DataLocation;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Upload and verified-read throughput of one object through {@link S3Stage} (two local passes,
 * multipart upload of 16 MiB parts with Content-MD5, GET with SHA-256 at EOF) beside a plain AWS
 * SDK {@code PutObject} / {@code GetObject} of the same bytes to the same S3Proxy on loopback.
 * Prints MB/s of each and the ratio lake/plain (<b>above 1: lake faster</b>).
 *
 * <pre>bench/s3stage [--mb 1024] [--rounds 2]</pre>
 */
public final class S3StageBench {

  private static final String ID = "bench";
  private static final String SECRET = "bench-secret";

  private S3StageBench() {}

  public static void main(String[] args) throws Exception {
    int mb = 1024;
    int rounds = 2;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--mb" -> mb = Integer.parseInt(args[i + 1]);
        case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + " (--mb N, --rounds N)");
      }
    }
    Path dir = Files.createTempDirectory("s3stage-bench");
    Properties p = new Properties();
    p.setProperty("jclouds.filesystem.basedir",
        Files.createDirectories(dir.resolve("store")).toString());
    BlobStore blobs = BlobStores.create("filesystem-nio2", p);
    S3Proxy proxy = S3Proxy.builder().blobStore(blobs)
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ID, SECRET)
        .endpoint(URI.create("http://127.0.0.1:0")).build();
    proxy.start();
    while (!"STARTED".equals(proxy.getState())) {
      Thread.sleep(10);
    }
    URI endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
    StageDescriptor descriptor = new StageDescriptor("bench",
        URI.create("s3://stage/lake/tenants/bench/"), endpoint, "us-east-1", true);
    try (S3Client plain = S3Client.builder().httpClientBuilder(UrlConnectionHttpClient.builder())
            .region(Region.US_EAST_1).forcePathStyle(true).endpointOverride(endpoint)
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .credentialsProvider(StaticCredentialsProvider.create(
                AwsBasicCredentials.create(ID, SECRET))).build();
        S3Stage stage = new S3Stage(descriptor, StageCredentials.of(ID, SECRET),
            dir.resolve("resume"))) {
      plain.createBucket(b -> b.bucket("stage"));
      Path file = dir.resolve("object.bin");
      write(file, (long) mb << 20);
      System.out.printf("object %d MB, S3Proxy on %s, %d rounds%n", mb, endpoint, rounds);
      System.out.printf("%-6s %-8s %12s %12s %10s%n", "round", "op", "lake MB/s", "plain MB/s",
          "lake/plain");
      for (int round = 1; round <= rounds; round++) {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
          raf.writeLong(round); // new content: a new content key every round
        }
        long size = Files.size(file);
        long t0 = System.nanoTime();
        DataLocation loc = stage.put(file, "application/octet-stream", UploadProgress.none());
        long t1 = System.nanoTime();
        String key = "plain/" + round;
        plain.putObject(r -> r.bucket("stage").key(key), RequestBody.fromFile(file));
        long t2 = System.nanoTime();
        drain(stage.open(loc, 0, size));
        long t3 = System.nanoTime();
        drain(plain.getObject(r -> r.bucket("stage").key(key)));
        long t4 = System.nanoTime();
        print(round, "upload", size, t1 - t0, t2 - t1);
        print(round, "read", size, t3 - t2, t4 - t3);
        plain.deleteObject(r -> r.bucket("stage").key(key));
        plain.deleteObject(r -> r.bucket("stage").key(loc.uri().getPath().substring(1)));
      }
    } finally {
      proxy.stop();
      blobs.close();
      try (Stream<Path> all = Files.walk(dir)) {
        all.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  private static void write(Path file, long size) throws Exception {
    SplittableRandom random = new SplittableRandom(42);
    byte[] chunk = new byte[1 << 20];
    try (var out = Files.newOutputStream(file)) {
      for (long done = 0; done < size; done += chunk.length) {
        random.nextBytes(chunk);
        out.write(chunk, 0, (int) Math.min(chunk.length, size - done));
      }
    }
  }

  private static void drain(InputStream in) throws Exception {
    byte[] buffer = new byte[1 << 16];
    try (in) {
      while (in.read(buffer) >= 0) {
        // discard
      }
    }
  }

  private static void print(int round, String op, long bytes, long lakeNanos, long plainNanos) {
    double lake = bytes / 1e6 / (lakeNanos / 1e9);
    double plain = bytes / 1e6 / (plainNanos / 1e9);
    System.out.printf("%-6d %-8s %12.1f %12.1f %10.2f%n", round, op, lake, plain, lake / plain);
  }
}
