package dev.lake.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.CountingRegistry;
import dev.lake.flight.LakeFlightServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LakeClient#append}: exactly once through lost replies, pending appends resumed in
 * memory or from a checkpoint by another client, and what a careless caller passes.
 */
class LakeClientAppendTest {

  @TempDir Path directory;
  private CountingRegistry authority;
  private LakeTestServer server;
  private LakeClient lake;
  private final BufferAllocator allocator = new RootAllocator();

  @BeforeEach
  void start() {
    server = new LakeTestServer(directory.resolve("server"), LakeFlightServer.builder(),
        catalog -> authority = new CountingRegistry(catalog));
    lake = client();
    lake.execute("CREATE SCHEMA demo");
    lake.execute("CREATE TABLE demo.robots (id BIGINT, name VARCHAR)");
  }

  @AfterEach
  void stop() {
    lake.close();
    server.close();
    allocator.close();
  }

  private LakeClient client() {
    return LakeClient.connect(server.uri(), Credentials.none(), StageCredentials.defaultChain(),
        directory.resolve("resume"));
  }

  /** Rows id in [from, from + count), name "r<id>", in batches of at most 1000 rows. */
  private ArrowReader rows(long from, int count) {
    Schema schema = new Schema(List.of(
        org.apache.arrow.vector.types.pojo.Field.nullable("id",
            new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true)),
        org.apache.arrow.vector.types.pojo.Field.nullable("name",
            org.apache.arrow.vector.types.pojo.ArrowType.Utf8.INSTANCE)));
    return new ArrowReader(allocator) {
      private long next = from;

      @Override
      public boolean loadNextBatch() throws IOException {
        VectorSchemaRoot root = getVectorSchemaRoot();
        int n = (int) Math.min(1000, from + count - next);
        if (n <= 0) {
          return false;
        }
        root.allocateNew();
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        for (int i = 0; i < n; i++) {
          id.setSafe(i, next + i);
          name.setSafe(i, ("r" + (next + i)).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        root.setRowCount(n);
        next += n;
        return true;
      }

      @Override
      public long bytesRead() {
        return 0;
      }

      @Override
      protected void closeReadSource() {}

      @Override
      protected Schema readSchema() {
        return schema;
      }
    };
  }

  private AppendResult append(LakeClient client, long from, int count) throws IOException {
    try (ArrowReader reader = rows(from, count)) {
      return client.append("demo.robots", reader);
    }
  }

  private long count() {
    try (QueryResult result = lake.query("SELECT count(*) AS n, count(DISTINCT id) AS d FROM demo.robots")) {
      Row row = result.rows().iterator().next();
      assertEquals(row.getLong("n"), row.getLong("d"), "no row appended twice");
      return row.getLong("n");
    }
  }

  private List<Path> checkpoints() throws IOException {
    Path dir = directory.resolve("resume").resolve("appends");
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (var files = Files.list(dir)) {
      return files.toList();
    }
  }

  @Test
  void appendsOneVersionAndNamesIt() throws Exception {
    AppendResult first = append(lake, 0, 2500);
    assertEquals(2500, first.rows());
    assertEquals(1, first.version());
    AppendResult second = append(lake, 2500, 10);
    assertEquals(2, second.version());
    assertFalse(first.operationId().equals(second.operationId()));
    assertEquals(2510, count());
    assertEquals(List.of(), checkpoints(), "a finished append leaves no checkpoint");
    try (ArrowReader reader = rows(9000, 10)) {
      assertEquals(3, lake.append("lake.demo.robots", reader).version());
    }
  }

  @Test
  void aReplyLostAfterTheCommitIsRetriedAndAnswersTheSameVersion() throws Exception {
    authority.appendRepliesToLose.set(2);
    AppendResult result = append(lake, 0, 100);
    assertEquals(2, authority.appendRepliesLost.get(), "two replies were lost, then answered");
    assertEquals(1, result.version(), "the version the first attempt committed");
    assertEquals(1, server.version("demo", "robots"));
    assertEquals(100, count());
  }

  @Test
  void afterTheRetryWindowAPendingAppendResumesExactlyOnce() throws Exception {
    authority.appendRepliesToLose.set(-1);
    lake.setAppendRetryWindow(Duration.ZERO);
    LakeException.AppendPending pending = assertThrows(LakeException.AppendPending.class,
        () -> append(lake, 0, 100));
    assertTrue(pending.retrySafe());
    assertTrue(pending.getMessage().contains(pending.pending().operationId().toString())
        && pending.getMessage().contains("demo.robots"), pending.getMessage());
    assertEquals(1, server.version("demo", "robots"), "it had committed");
    assertEquals(List.of(pending.pending().checkpoint().orElseThrow()), checkpoints());

    authority.appendRepliesToLose.set(0);
    AppendResult resumed = lake.resume(pending.pending());
    assertEquals(1, resumed.version());
    assertEquals(pending.pending().operationId(), resumed.operationId());
    assertEquals(100, count());
    assertEquals(List.of(), checkpoints());
    assertEquals(1, lake.resume(pending.pending()).version(), "resuming again changes nothing");
    assertEquals(100, count());
  }

  @Test
  void aCheckpointedAppendIsResumedByAnotherClientOnce() throws Exception {
    authority.down = true; // nothing reaches the registry: not committed yet
    LakeClient crashed = client();
    crashed.setAppendRetryWindow(Duration.ZERO);
    LakeException.AppendPending pending = assertThrows(LakeException.AppendPending.class,
        () -> append(crashed, 0, 42));
    crashed.close();
    authority.down = false;

    try (LakeClient other = client()) {
      List<PendingAppend> found = other.pendingAppends();
      assertEquals(1, found.size());
      assertEquals(pending.pending().operationId(), found.getFirst().operationId());
      assertEquals("demo.robots", found.getFirst().table());
      assertEquals(42, found.getFirst().rows());
      AppendResult resumed = other.resume(found.getFirst());
      assertEquals(1, resumed.version());
      assertEquals(List.of(), other.pendingAppends());
    }
    assertEquals(42, count());
  }

  /**
   * One process appends, the commit happens but its reply is lost, and the process gives up
   * (no retry window) leaving its checkpoint; another process finds it and resumes it: the
   * version the first one committed, one set of rows.
   */
  @Test
  void anAppendCheckpointedByOneProcessIsResumedByAnotherOnce() throws Exception {
    lake.execute("CREATE TABLE demo.ids (id BIGINT)");
    authority.appendRepliesToLose.set(-1);
    Path resume = directory.resolve("resume");
    ChildJvm first = ChildJvm.start(directory, "first", List.of(), AppendMain.class,
        List.of(server.uri(), resume.toString(), "append", "42"));
    assertEquals(AppendMain.PENDING, first.await(), first.output());
    String operation = first.output().lines().filter(l -> l.startsWith("pending "))
        .findFirst().orElseThrow(() -> new AssertionError(first.output())).substring(8).trim();
    assertEquals(1, server.version("demo", "ids"), "the lost reply had committed");
    assertEquals(1, checkpoints().size(), "the first process left its checkpoint");

    authority.appendRepliesToLose.set(0);
    ChildJvm second = ChildJvm.start(directory, "second", List.of(), AppendMain.class,
        List.of(server.uri(), resume.toString(), "resume"));
    assertEquals(0, second.await(), second.output());
    assertTrue(second.output().contains("resumed " + operation + " 1"), second.output());
    assertEquals(1, server.version("demo", "ids"), "no second version");
    try (QueryResult result = lake.query("SELECT count(*) AS n FROM demo.ids")) {
      assertEquals(42L, result.rows().iterator().next().getLong("n"));
    }
    assertEquals(List.of(), checkpoints());
  }

  @Test
  void aDamagedCheckpointIsReportedNamingTheFile() throws Exception {
    authority.down = true;
    lake.setAppendRetryWindow(Duration.ZERO);
    LakeException.AppendPending pending = assertThrows(LakeException.AppendPending.class,
        () -> append(lake, 0, 5));
    Path file = pending.pending().checkpoint().orElseThrow();
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length / 2] ^= 0x40;
    Files.write(file, bytes);
    IOException e = assertThrows(IOException.class, () -> lake.pendingAppends());
    assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("damaged"),
        e.getMessage());
    IOException notOne = assertThrows(IOException.class,
        () -> PendingAppend.load(Files.writeString(directory.resolve("x.append"), "hello")));
    assertTrue(notOne.getMessage().contains("x.append"), notOne.getMessage());
  }

  @Test
  void carelessAppendsAreRefusedBeforeAnythingIsWritten() throws Exception {
    LakeException.InvalidArgument none = assertThrows(LakeException.InvalidArgument.class,
        () -> append(lake, 0, 0));
    assertTrue(none.getMessage().contains("at least one row"), none.getMessage());
    LakeException.InvalidArgument many = assertThrows(LakeException.InvalidArgument.class,
        () -> append(lake, 0, LakeClient.MAX_APPEND_ROWS + 1));
    assertTrue(many.getMessage().contains("10000"), many.getMessage());
    for (String bad : new String[] {"robots", "a.b.c.d", "iceberg.demo.robots", ".robots", "demo."}) {
      try (ArrowReader reader = rows(0, 1)) {
        LakeException.InvalidArgument name = assertThrows(LakeException.InvalidArgument.class,
            () -> lake.append(bad, reader));
        assertTrue(name.getMessage().contains(bad), name.getMessage());
      }
    }
    try (ArrowReader reader = rows(0, 1)) {
      LakeException.NotFound missing = assertThrows(LakeException.NotFound.class,
          () -> lake.append("demo.nosuch", reader));
      assertTrue(missing.getMessage().contains("demo.nosuch"), missing.getMessage());
    }
    lake.execute("CREATE TABLE demo.other (id BIGINT, score DOUBLE)");
    try (ArrowReader reader = rows(0, 1)) {
      LakeException.InvalidArgument columns = assertThrows(LakeException.InvalidArgument.class,
          () -> lake.append("demo.other", reader));
      assertTrue(columns.getMessage().contains("name") || columns.getMessage().contains("score"),
          columns.getMessage());
    }
    assertEquals(0, server.version("demo", "robots"));
    assertEquals(0, server.version("demo", "other"));
    assertEquals(List.of(), checkpoints(), "a definite refusal leaves no checkpoint");
    assertEquals(0, count());
    assertEquals(1, append(lake, 0, 1).version(), "the server still answers");
  }

  @Test
  void anOperationIdIsNeverReusedAcrossAppends() throws Exception {
    java.util.Set<UUID> ids = new java.util.HashSet<>();
    for (int i = 0; i < 5; i++) {
      ids.add(append(lake, i * 10L, 10).operationId());
    }
    assertEquals(5, ids.size());
    assertEquals(50, count());
  }
}
