package dev.lake.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.metastore.MetaStoreException;
import dev.lake.metastore.dynamodb.Dynalite;
import dev.lake.metastore.dynamodb.DynamoDbMetaStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code lake metastore init} against dynalite, through the real AWS SDK client. */
class MetastoreInitTest {

  static Dynalite dynalite;

  @BeforeAll
  static void startDynalite() {
    dynalite = Dynalite.start();
  }

  @AfterAll
  static void stopDynalite() {
    if (dynalite != null) {
      dynalite.close();
    }
  }

  private record Run(int exitCode, String out, String err) {}

  private static Run lake(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = new CommandLine(new Lake()).setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true)).execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  private static String[] init(String table, String... more) {
    List<String> args = new ArrayList<>(List.of("metastore", "init",
        "--endpoint", dynalite.endpoint().toString(), "--region", Dynalite.REGION,
        "--table", table, "--access-key", Dynalite.ACCESS_KEY,
        "--secret-key", Dynalite.SECRET_KEY));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  @Test
  void initCreatesTheTableOnceAndThenReportsItExists() {
    Run first = lake(init("lake-cli-meta"));
    assertEquals(0, first.exitCode(), first.err());
    assertTrue(first.out().contains("created table 'lake-cli-meta' at " + dynalite.endpoint()),
        first.out());
    try (DynamoDbMetaStore store =
        DynamoDbMetaStore.open(dynalite.settings("lake-cli-meta"))) {
      assertTrue(store.compareAndSet("tbl/ns/t", Optional.empty(), bytes("registered")));
    }
    Run again = lake(init("lake-cli-meta"));
    assertEquals(0, again.exitCode(), again.err());
    assertTrue(again.out().contains("already exists") && again.out().contains("nothing changed"),
        again.out());
    try (DynamoDbMetaStore store =
        DynamoDbMetaStore.open(dynalite.settings("lake-cli-meta"))) {
      assertArrayEquals(bytes("registered"), store.get("tbl/ns/t").orElseThrow());
    }
  }

  @Test
  void storeRefusesATableThatWasNeverInitialized() {
    MetaStoreException e = org.junit.jupiter.api.Assertions.assertThrows(
        MetaStoreException.class, () -> DynamoDbMetaStore.open(dynalite.settings("never-made")));
    assertTrue(e.getMessage().contains("lake metastore init --table never-made"), e.getMessage());
  }

  @Test
  void badArgumentsAreRefusedClearly() {
    Run badName = lake(init("x"));
    assertEquals(2, badName.exitCode());
    assertTrue(badName.err().contains("invalid DynamoDB table name 'x'"), badName.err());
    Run halfCredentials = lake("metastore", "init", "--endpoint", dynalite.endpoint().toString(),
        "--region", Dynalite.REGION, "--table", "lake-half", "--access-key", "only");
    assertEquals(2, halfCredentials.exitCode());
    assertTrue(halfCredentials.err().contains("both an access key and a secret key"),
        halfCredentials.err());
    Run noTable = lake("metastore", "init", "--region", Dynalite.REGION);
    assertEquals(2, noTable.exitCode());
    assertTrue(noTable.err().contains("--table"), noTable.err());
  }

  @Test
  void unreachableEndpointFailsWithTheEndpointInTheMessage() {
    Run run = lake("metastore", "init", "--endpoint", "http://127.0.0.1:1", "--region",
        Dynalite.REGION, "--table", "lake-nowhere", "--access-key", "a", "--secret-key", "b");
    assertEquals(1, run.exitCode());
    assertTrue(run.err().contains("http://127.0.0.1:1"), run.err());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
