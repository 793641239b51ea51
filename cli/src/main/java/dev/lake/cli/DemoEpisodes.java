package dev.lake.cli;

import dev.lake.catalog.TableRegistry;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The demo table {@code demo.episodes} that {@code lake dev} creates on first start: robot
 * episodes with ids, robot and task names, outcome, duration, reward, start time and day. The rows
 * are generated from a fixed seed, so every fresh data directory holds the same table.
 */
final class DemoEpisodes {

  static final TableIdent TABLE = TableIdent.of("demo", "episodes");
  static final int ROWS = 10_000;

  private static final String[] ROBOTS = {"atlas-01", "atlas-02", "spot-07", "franka-03", "ur5-11"};
  private static final String[] TASKS = {"pick_cube", "open_drawer", "stack_blocks", "pour_water",
      "fold_towel", "insert_peg"};
  private static final Instant START = Instant.parse("2026-01-05T08:00:00Z");

  static final Schema SCHEMA = new Schema(List.of(
      Field.notNullable("episode_id", new ArrowType.Int(64, true)),
      Field.notNullable("robot", ArrowType.Utf8.INSTANCE),
      Field.notNullable("task", ArrowType.Utf8.INSTANCE),
      Field.notNullable("success", ArrowType.Bool.INSTANCE),
      Field.notNullable("steps", new ArrowType.Int(32, true)),
      Field.notNullable("duration_s", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      Field.nullable("reward", new ArrowType.Decimal(10, 3, 128)),
      Field.notNullable("started_at", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
      new Field("day", FieldType.notNullable(new ArrowType.Date(DateUnit.DAY)), null)));

  private DemoEpisodes() {}

  /** Creates and fills the demo table unless it is already registered. @return true if created */
  static boolean createIfAbsent(TableRegistry catalog, BufferAllocator allocator) {
    if (catalog.lookup(TABLE).isPresent()) {
      return false;
    }
    var created = catalog.create(TABLE, SCHEMA, "log");
    try (VectorSchemaRoot root = generate(allocator)) {
      var batch = new VectorUnloader(root).getRecordBatch();
      try (RecordBatchReader reader = new RecordBatchReader(allocator, SCHEMA, List.of(batch))) {
        catalog.append(TABLE, Optional.of(created.incarnation()), operation(), reader);
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return true;
  }

  static VectorSchemaRoot generate(BufferAllocator allocator) {
    Random random = new Random(20260105L);
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("episode_id");
    VarCharVector robot = (VarCharVector) root.getVector("robot");
    VarCharVector task = (VarCharVector) root.getVector("task");
    BitVector success = (BitVector) root.getVector("success");
    IntVector steps = (IntVector) root.getVector("steps");
    Float8Vector duration = (Float8Vector) root.getVector("duration_s");
    DecimalVector reward = (DecimalVector) root.getVector("reward");
    TimeStampMicroTZVector started = (TimeStampMicroTZVector) root.getVector("started_at");
    DateDayVector day = (DateDayVector) root.getVector("day");
    long micros = START.getEpochSecond() * 1_000_000L;
    for (int i = 0; i < ROWS; i++) {
      id.setSafe(i, i + 1L);
      robot.setSafe(i, ROBOTS[random.nextInt(ROBOTS.length)].getBytes(StandardCharsets.UTF_8));
      task.setSafe(i, TASKS[random.nextInt(TASKS.length)].getBytes(StandardCharsets.UTF_8));
      boolean ok = random.nextDouble() < 0.7;
      success.setSafe(i, ok ? 1 : 0);
      int stepCount = 50 + random.nextInt(950);
      steps.setSafe(i, stepCount);
      duration.setSafe(i, Math.round(stepCount * (0.05 + random.nextDouble() * 0.05) * 1000) / 1000.0);
      if (random.nextInt(20) == 0) {
        reward.setNull(i);
      } else {
        reward.setSafe(i, BigDecimal.valueOf(ok ? 500 + random.nextInt(500_000) : random.nextInt(200_000), 3));
      }
      micros += 30_000_000L + random.nextInt(600) * 1_000_000L;
      started.setSafe(i, micros);
      day.setSafe(i, (int) LocalDate.ofInstant(Instant.ofEpochSecond(micros / 1_000_000L),
          java.time.ZoneOffset.UTC).toEpochDay());
    }
    root.setRowCount(ROWS);
    return root;
  }

  private static AppendOperation operation() {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(("demo.episodes seed 20260105 rows " + ROWS).getBytes(StandardCharsets.UTF_8));
      return AppendOperation.of("default", TABLE.toString(),
          UUID.nameUUIDFromBytes(digest), digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }
}
