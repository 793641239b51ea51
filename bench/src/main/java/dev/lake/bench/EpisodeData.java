package dev.lake.bench;

import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Synthetic robot episodes for benchmarks. Row {@code i} is a pure function of {@code i}, so lake
 * and each peer load exactly the same data without sharing files.
 */
final class EpisodeData {

  static final String[] ROBOTS = {"atlas-01", "atlas-02", "spot-07", "franka-03", "ur5-11",
      "ur5-12", "aloha-02", "aloha-05"};

  static final Schema SCHEMA = new Schema(List.of(
      Field.notNullable("episode_id", new ArrowType.Int(64, true)),
      Field.notNullable("robot", ArrowType.Utf8.INSTANCE),
      Field.notNullable("success", ArrowType.Bool.INSTANCE),
      Field.notNullable("steps", new ArrowType.Int(32, true)),
      Field.notNullable("duration_s", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      Field.nullable("reward", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));

  private EpisodeData() {}

  static long mix(long i) {
    long z = i * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  static String robot(long i) {
    return ROBOTS[(int) Math.floorMod(mix(i), (long) ROBOTS.length)];
  }

  static boolean success(long i) {
    return Math.floorMod(mix(i) >>> 8, 10L) < 7;
  }

  static int steps(long i) {
    return 50 + (int) Math.floorMod(mix(i) >>> 16, 950L);
  }

  static double durationS(long i) {
    return steps(i) * (0.05 + Math.floorMod(mix(i) >>> 24, 1000L) / 20000.0);
  }

  /** Null for one row in 20. */
  static Double reward(long i) {
    long m = mix(i) >>> 34;
    return Math.floorMod(m, 20L) == 0 ? null : Math.floorMod(m, 100_000L) / 100.0;
  }

  /** Fills {@code root} with rows {@code first .. first+count-1}. */
  static void fill(VectorSchemaRoot root, long first, int count) {
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("episode_id");
    VarCharVector robot = (VarCharVector) root.getVector("robot");
    BitVector success = (BitVector) root.getVector("success");
    IntVector steps = (IntVector) root.getVector("steps");
    Float8Vector duration = (Float8Vector) root.getVector("duration_s");
    Float8Vector reward = (Float8Vector) root.getVector("reward");
    for (int r = 0; r < count; r++) {
      long i = first + r;
      id.setSafe(r, i);
      robot.setSafe(r, robot(i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      success.setSafe(r, success(i) ? 1 : 0);
      steps.setSafe(r, steps(i));
      duration.setSafe(r, durationS(i));
      Double value = reward(i);
      if (value == null) {
        reward.setNull(r);
      } else {
        reward.setSafe(r, value);
      }
    }
    root.setRowCount(count);
  }
}
