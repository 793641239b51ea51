package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code lake metasrv --warehouse} and {@code --s3-*}: a malformed warehouse or incomplete S3
 * options are usage errors naming the offending input, refused before anything is opened.
 */
class MetasrvWarehouseOptionsTest {

  @TempDir Path dir;

  private String refused(String expected, String... args) {
    StringWriter err = new StringWriter();
    CommandLine lake = new CommandLine(new Lake());
    lake.setErr(new PrintWriter(err, true));
    Path data = dir.resolve("data");
    List<String> all = new ArrayList<>(List.of("metasrv", "--data-dir", data.toString()));
    all.addAll(List.of(args));
    int exit = lake.execute(all.toArray(String[]::new));
    assertEquals(2, exit, err.toString());
    assertTrue(err.toString().contains(expected), err.toString());
    assertFalse(Files.exists(data), "a refused start created " + data);
    return err.toString();
  }

  @Test
  void anS3WarehouseWithoutABucketIsRefused() {
    refused("needs a bucket", "--warehouse", "s3://");
    refused("needs a bucket", "--warehouse", "s3:///prefix");
  }

  @Test
  void anUnknownSchemeIsRefusedNamingTheWarehouse() {
    String err = refused("--warehouse", "--warehouse", "gs://bucket/prefix");
    assertTrue(err.contains("gs://bucket/prefix"), err);
  }

  @Test
  void aCustomEndpointWithoutCredentialsIsRefused() {
    refused("needs credentials", "--warehouse", "s3://lake/wh", "--s3-endpoint",
        "http://127.0.0.1:9", "--s3-access-key", "", "--s3-secret-key", "");
  }

  @Test
  void halfACredentialOrAMalformedEndpointIsRefused() {
    refused("--s3-secret-key", "--warehouse", "s3://lake/wh", "--s3-endpoint",
        "http://127.0.0.1:9", "--s3-access-key", "k", "--s3-secret-key", "");
    refused("--s3-endpoint must be an http(s) URL", "--warehouse", "s3://lake/wh",
        "--s3-endpoint", "ftp://127.0.0.1:9", "--s3-access-key", "k", "--s3-secret-key", "s");
  }

  @Test
  void anEndpointForALocalWarehouseIsRefused() {
    refused("needs an s3://bucket/prefix --warehouse", "--s3-endpoint", "http://127.0.0.1:9");
  }
}
