package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.cli.objects.PutCommand;
import dev.lake.engine.DataLocation;
import dev.lake.engine.lance.S3ProxyServer;
import dev.lake.sdk.Credentials;
import dev.lake.sdk.LakeClient;
import dev.lake.sdk.QueryResult;
import dev.lake.sdk.StageCredentials;
import dev.lake.sdk.UploadProgress;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code lake put} against a server whose stage is S3 (S3Proxy on loopback): an upload stopped
 * after its first parts inserts nothing and keeps its multipart upload in the resume directory;
 * the same command run again completes it and inserts one row. (That only the missing parts are
 * sent again is proven on the stage itself, by S3StageTest.)
 */
class LakePutS3ResumeTest {

  private static final long PART = 16L * 1024 * 1024;

  @TempDir Path dir;

  @Test
  void anInterruptedPutResumesWhenRunAgainWithTheSameArguments() throws Exception {
    // The CLI takes storage credentials from the AWS default chain; its system properties here.
    System.setProperty("aws.accessKeyId", S3ProxyServer.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", S3ProxyServer.SECRET_KEY);
    try (S3ProxyServer s3 = new S3ProxyServer(Files.createDirectories(dir.resolve("s3")));
        DevServer server = DevServer.start(dir.resolve("data"), "127.0.0.1", 0,
            QueryLimits.defaults(), null, null,
            builder -> builder.stage(URI.create("s3://" + S3ProxyServer.BUCKET + "/stage/"),
                URI.create(s3.endpoint()), "us-east-1", true), Optional.empty());
        LakeClient lake = LakeClient.connect("grpc://127.0.0.1:" + server.port(),
            Credentials.none(), StageCredentials.of(S3ProxyServer.ACCESS_KEY,
                S3ProxyServer.SECRET_KEY), null)) {
      lake.execute("CREATE SCHEMA robots");
      lake.execute("CREATE TABLE robots.episodes (id BIGINT, video FILE)");
      byte[] bytes = new byte[(int) (2 * PART + 12345)]; // three parts
      new Random(3).nextBytes(bytes);
      Path file = Files.write(dir.resolve("run42.mcap"), bytes);
      Path resume = dir.resolve("resume");
      String[] args = {"robots.episodes", "--file", file.toString(), "--set", "id=42",
          "--endpoint", "grpc://127.0.0.1:" + server.port(), "--resume-dir", resume.toString()};

      AtomicLong stoppedAt = new AtomicLong();
      UnaryOperator<UploadProgress> stopAfterOnePart = inner -> (done, total) -> {
        inner.onProgress(done, total);
        if (done >= PART && done < total) {
          stoppedAt.set(done);
          throw new IllegalStateException("stopped after " + done + " bytes");
        }
      };
      StringWriter err = new StringWriter();
      CommandLine first = new CommandLine(new PutCommand(() -> false, stopAfterOnePart));
      first.setErr(new PrintWriter(err, true));
      first.setOut(new PrintWriter(new StringWriter(), true));
      assertNotEquals(0, first.execute(args), err.toString());
      assertEquals(PART, stoppedAt.get());
      assertEquals(0, count(lake));
      assertEquals(1, files(resume), "the interrupted multipart upload is remembered");

      StringWriter out = new StringWriter();
      CommandLine again = new CommandLine(new PutCommand(() -> false));
      again.setOut(new PrintWriter(out, true));
      again.setErr(new PrintWriter(new StringWriter(), true));
      assertEquals(0, again.execute(args));
      assertEquals(1, count(lake));
      assertEquals(0, files(resume), "the completed upload is forgotten");
      try (QueryResult result = lake.query("SELECT video FROM robots.episodes WHERE id = 42")) {
        DataLocation location = result.rows().iterator().next().getLocation("video");
        assertTrue(location.uri().toString().startsWith("s3://lake/stage/tenants/"), location.toString());
        assertTrue(out.toString().contains("uri:    " + location.uri()), out.toString());
        assertTrue(out.toString().contains("committed version 1\n"), "the interrupted run"
            + " committed nothing, the resumed one the table's first version: " + out);
        try (InputStream in = lake.open(location)) {
          assertArrayEquals(bytes, in.readAllBytes());
        }
      }
    } finally {
      System.clearProperty("aws.accessKeyId");
      System.clearProperty("aws.secretAccessKey");
    }
  }

  private static long count(LakeClient lake) {
    try (QueryResult result = lake.query("SELECT count(*) AS n FROM robots.episodes")) {
      return result.rows().iterator().next().getLong("n");
    }
  }

  private static long files(Path dir) throws java.io.IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).count();
    }
  }
}
