package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import dev.lake.catalog.TableEntry;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.Version;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded fuzzing of {@code DoPut CommandStatementIngest}: bit flips and truncations of a valid
 * ingest stream (inside the Arrow IPC header and body of a message, or anywhere in a message's
 * protobuf bytes), and streams cut short. After every input the server still answers, no answer
 * is INTERNAL or UNKNOWN, no server worker stays busy, and the tables hold exactly what the answers say: an append that
 * failed left the table's version and rows as they were, one that succeeded added one version
 * with exactly the rows it reported, and every aggregate over the table still runs.
 *
 * <p>Bounded for CI ({@value #DEFAULT_ITERATIONS} inputs). Longer runs: {@code
 * -Dlake.fuzz.iterations=N}, another sequence: {@code -Dlake.fuzz.seed=S}; every assertion
 * message names the seed and the input's number, and input i depends only on (seed, i).
 */
@SuppressWarnings("try")
class FlightIngestFuzzTest {

  private static final int DEFAULT_ITERATIONS = 300;
  private static final long SEED = Long.getLong("lake.fuzz.seed", 0x5EED_17L);
  private static final int ITERATIONS = Integer.getInteger("lake.fuzz.iterations",
      DEFAULT_ITERATIONS);
  private static final TableIdent RUNS = TableIdent.of("lab", "runs");
  private static final TableDefinitionOptions CREATE_OR_APPEND = TableDefinitionOptions.newBuilder()
      .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
      .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_APPEND)
      .build();
  private static final String AGGREGATES =
      "SELECT count(*), count(robot), count(reward), min(id), max(id), min(robot), max(robot),"
          + " min(reward), max(reward)";

  /** How an input was made from the valid stream. */
  enum Mutation {
    FLIP_HEADER_BITS, FLIP_BODY_BITS, TRUNCATE_HEADER, TRUNCATE_BODY, FLIP_PROTOBUF_BITS,
    TRUNCATE_PROTOBUF, CUT_STREAM
  }

  @TempDir Path directory;
  private LakeServerFixture lake;
  private RawDoPut raw;
  /** The valid stream's messages after the descriptor-carrying first one: its batches. */
  private final List<Flight.FlightData> batches = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    lake = new LakeServerFixture(directory);
    raw = new RawDoPut(lake.port());
    try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), 0, 10)) {
      lake.client().executeIngest(rows, IngestData.options("lab", "runs",
          TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
          TableExistsOption.TABLE_EXISTS_OPTION_FAIL));
    }
    int from = 1_000;
    for (int size : new int[] {5, 82, 17}) {
      try (VectorSchemaRoot rows = IngestData.episodes(lake.clientAllocator(), from, size)) {
        // Some NULLs, so validity bitmaps are present and matter.
        ((VarCharVector) rows.getVector("robot")).setNull(size / 2);
        ((Float8Vector) rows.getVector("reward")).setNull(size - 1);
        batches.add(RawDoPut.batchMessage(rows));
      }
      from += size;
    }
  }

  @AfterEach
  void stop() throws Exception {
    raw.close();
    lake.close();
  }

  @Test
  void mutatedIngestStreamsNeverCommitWhatTheyDidNotReportAndNeverAnswerInternal()
      throws Exception {
    Map<Mutation, int[]> outcomes = new EnumMap<>(Mutation.class); // {ok, refused}
    for (int i = 0; i < ITERATIONS; i++) {
      Random random = new Random(SEED * 1_000_003L + i);
      Mutation mutation = Mutation.values()[random.nextInt(Mutation.values().length)];
      // Odd inputs create a fresh table, even ones append to the existing one.
      TableIdent target = i % 2 == 0 ? RUNS : TableIdent.of("lab", "fresh" + i);
      String where = "seed=" + SEED + " input=" + i + " mutation=" + mutation + " target="
          + target + ": ";
      TableEntry before = lake.catalog.lookup(RUNS).orElseThrow();
      long rowsBefore = count(RUNS, where);

      List<byte[]> input = mutate(mutation, target, random);
      RawDoPut.Answer answer = raw.send(input);
      where += answer.describe() + ": ";
      assertNotEquals(Status.Code.INTERNAL, answer.status().getCode(), where);
      assertNotEquals(Status.Code.UNKNOWN, answer.status().getCode(), where);
      boolean ok = answer.status().isOk();
      outcomes.computeIfAbsent(mutation, m -> new int[2])[ok ? 0 : 1]++;
      if (!ok) {
        assertEquals(Status.Code.INVALID_ARGUMENT, answer.status().getCode(), where);
      }

      // No worker stays busy once the answer is in: poll with a generous bound (the machine may
      // be loaded), failing only if the pool never becomes idle.
      long idleBy = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
      while (lake.server.activeWorkers() > 0 && System.nanoTime() < idleBy) {
        Thread.sleep(1);
      }
      assertEquals(0, lake.server.activeWorkers(), where + "a worker stays busy");

      // The server answers, and the tables hold exactly what the answer says.
      TableEntry after = lake.catalog.lookup(RUNS).orElseThrow();
      long rowsAfter = count(RUNS, where);
      if (target.equals(RUNS) && ok && answer.recordCount() > 0) {
        assertEquals(before.version().number() + 1, after.version().number(), where);
        assertEquals(rowsBefore + answer.recordCount(), rowsAfter, where);
      } else {
        assertEquals(before.version(), after.version(), where + "the version moved");
        assertEquals(rowsBefore, rowsAfter, where + "the rows changed");
      }
      aggregatesRun(RUNS, where);
      if (!target.equals(RUNS)) {
        Optional<TableEntry> fresh = lake.catalog.lookup(target);
        if (ok) {
          assertTrue(fresh.isPresent(), where + "the table was not created");
          assertEquals(answer.recordCount() > 0 ? Version.of(1) : Version.of(0),
              fresh.get().version(), where);
          assertEquals(answer.recordCount(), count(target, where), where);
          scanEverything(target, where);
        } else {
          assertTrue(fresh.isEmpty(), where + "a refused ingest left a table behind");
        }
      }
    }
    StringBuilder summary = new StringBuilder("seed=" + SEED + " inputs=" + ITERATIONS);
    outcomes.forEach((m, n) -> summary.append(' ').append(m).append("=ok:").append(n[0])
        .append("/refused:").append(n[1]));
    System.out.println(summary);
    // The fuzzer exercised both outcomes: flips that only change values are valid appends.
    int refused = outcomes.values().stream().mapToInt(n -> n[1]).sum();
    assertTrue(refused > 0 && refused < ITERATIONS, summary.toString());
  }

  /** The valid stream to {@code target} with one mutation, as the bytes of each message. */
  private List<byte[]> mutate(Mutation mutation, TableIdent target, Random random) {
    List<Flight.FlightData> messages = new ArrayList<>();
    messages.add(RawDoPut.schemaMessage(RawDoPut.ingest(target.namespace(), target.name(),
        CREATE_OR_APPEND), IngestData.EPISODES));
    messages.addAll(batches);
    // The first message's descriptor is never touched: a flipped table name would be a valid
    // ingest into another table, which this test does not track.
    int victim = random.nextInt(messages.size());
    Flight.FlightData m = messages.get(victim);
    int batch = 1 + random.nextInt(batches.size());
    List<byte[]> out = new ArrayList<>();
    switch (mutation) {
      case FLIP_HEADER_BITS -> messages.set(victim,
          m.toBuilder().setDataHeader(flip(m.getDataHeader(), random)).build());
      case FLIP_BODY_BITS -> messages.set(batch, messages.get(batch).toBuilder()
          .setDataBody(flip(messages.get(batch).getDataBody(), random)).build());
      case TRUNCATE_HEADER -> messages.set(victim, m.toBuilder()
          .setDataHeader(m.getDataHeader().substring(0, random.nextInt(m.getDataHeader().size())))
          .build());
      case TRUNCATE_BODY -> {
        ByteString body = messages.get(batch).getDataBody();
        messages.set(batch, messages.get(batch).toBuilder()
            .setDataBody(body.substring(0, random.nextInt(body.size()))).build());
      }
      case CUT_STREAM -> {
        // A valid prefix: the schema and the first k batches (0 to all but one).
        int keep = 1 + random.nextInt(messages.size() - 1);
        messages.subList(keep, messages.size()).clear();
      }
      default -> { } // the protobuf mutations work on bytes, below
    }
    for (int k = 0; k < messages.size(); k++) {
      byte[] bytes = messages.get(k).toByteArray();
      if (k == batch && mutation == Mutation.FLIP_PROTOBUF_BITS) {
        bytes = flip(ByteString.copyFrom(bytes), random).toByteArray();
      } else if (k == batch && mutation == Mutation.TRUNCATE_PROTOBUF) {
        bytes = java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length));
      }
      out.add(bytes);
    }
    return out;
  }

  /** One to three flipped bits, most often in the first 256 bytes (headers, offsets). */
  private static ByteString flip(ByteString bytes, Random random) {
    byte[] copy = bytes.toByteArray();
    if (copy.length == 0) {
      return bytes;
    }
    int flips = 1 + random.nextInt(3);
    for (int f = 0; f < flips; f++) {
      int range = random.nextBoolean() ? Math.min(256, copy.length) : copy.length;
      int position = random.nextInt(range);
      copy[position] ^= (byte) (1 << random.nextInt(8));
    }
    return ByteString.copyFrom(copy);
  }

  private long count(TableIdent table, String where) throws Exception {
    List<List<Object>> rows = query("SELECT count(*) FROM lab." + table.name(), where);
    return (Long) rows.getFirst().getFirst();
  }

  private void aggregatesRun(TableIdent table, String where) throws Exception {
    assertEquals(1, query(AGGREGATES + " FROM lab." + table.name(), where).size(), where);
  }

  private void scanEverything(TableIdent table, String where) throws Exception {
    query("SELECT * FROM lab." + table.name(), where);
  }

  private List<List<Object>> query(String sql, String where) throws Exception {
    try {
      return FlightIngestValidationTest.rows(lake.client(), sql);
    } catch (FlightRuntimeException e) {
      return fail(where + "'" + sql + "' failed: " + e.status().code() + " " + e.getMessage());
    }
  }
}
