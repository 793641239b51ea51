package dev.lake.engine.log.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link StatsCollector} on slices cut by {@link ColumnSlicer} (at byte and mid-byte offsets,
 * offsets starting at 0 or re-based) against statistics computed value by value.
 */
class LogStatsCollectorTest {

  private static final int ROWS = 3000;
  private static final int[][] RANGES = {
      {0, 1}, {0, 8}, {0, ROWS}, {3, 1}, {5, 13}, {8, 64}, {17, 500}, {1001, 1999}, {2999, 1}};

  private final BufferAllocator allocator = new RootAllocator();
  /** One collector for every chunk, as a segment writer uses it: scratch reused across sizes. */
  private final StatsCollector stats = new StatsCollector();

  @AfterEach
  void close() {
    allocator.close();
  }

  @Test
  void integersFloatsBoolsAndDecimalsMatchValueByValue() {
    for (long seed = 0; seed < 6; seed++) {
      Random random = new Random(seed);
      double nullShare = seed % 3 == 0 ? 0 : seed % 3 == 1 ? 0.1 : 0.97;
      FieldVector[] vectors = {
          new TinyIntVector(field(new ArrowType.Int(8, true)), allocator),
          new SmallIntVector(field(new ArrowType.Int(16, true)), allocator),
          new IntVector(field(new ArrowType.Int(32, true)), allocator),
          new BigIntVector(field(new ArrowType.Int(64, true)), allocator),
          new Float4Vector(field(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), allocator),
          new Float8Vector(field(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), allocator),
          new BitVector(field(ArrowType.Bool.INSTANCE), allocator),
          new DecimalVector(field(new ArrowType.Decimal(38, 4, 128)), allocator)};
      try {
        for (FieldVector v : vectors) {
          v.setInitialCapacity(ROWS);
          v.allocateNew();
        }
        boolean nanInFloats = seed == 4;
        for (int i = 0; i < ROWS; i++) {
          for (FieldVector v : vectors) {
            if (random.nextDouble() < nullShare) {
              v.setNull(i);
              continue;
            }
            switch (v) {
              case TinyIntVector t -> t.set(i, (byte) random.nextInt());
              case SmallIntVector t -> t.set(i, (short) random.nextInt());
              case IntVector t -> t.set(i, random.nextInt());
              case BigIntVector t -> t.set(i, random.nextLong());
              case Float4Vector t -> t.set(i, nanInFloats && i == 1500 ? Float.NaN : random.nextFloat() - 0.5f);
              case Float8Vector t -> t.set(i, nanInFloats && i == 2500 ? Double.NaN : random.nextGaussian());
              case BitVector t -> t.set(i, random.nextInt(seed == 5 ? 1000 : 2) == 0 ? 1 : 0);
              case DecimalVector t -> t.set(i, BigDecimal.valueOf(random.nextLong(), 4)
                  .multiply(BigDecimal.valueOf(random.nextInt(1000) - 500)));
              default -> throw new AssertionError(v);
            }
          }
        }
        for (FieldVector v : vectors) {
          v.setValueCount(ROWS);
          check(v);
        }
      } finally {
        for (FieldVector v : vectors) {
          v.close();
        }
      }
    }
  }

  @Test
  void utf8MatchesValueByValueWithTiesLongValuesAndNulls() {
    String[] stems = {"", "a", "name-", "name-0", "prefix00", "prefix00x", "zzzzzzzz", "\u00ff\u00ff"};
    for (long seed = 0; seed < 6; seed++) {
      Random random = new Random(seed);
      double nullShare = seed % 3 == 0 ? 0 : seed % 3 == 1 ? 0.1 : 0.97;
      try (VarCharVector v = new VarCharVector(field(ArrowType.Utf8.INSTANCE), allocator)) {
        v.allocateNew();
        for (int i = 0; i < ROWS; i++) {
          if (random.nextDouble() < nullShare) {
            v.setNull(i);
            continue;
          }
          byte[] value;
          int pick = random.nextInt(10);
          if (pick == 0) {
            // Long values, some only differing after the 64-byte cut, some all 0xFF there.
            value = new byte[60 + random.nextInt(20)];
            Arrays.fill(value, seed == 5 ? (byte) 0xFF : (byte) 'q');
            value[value.length - 1] = (byte) random.nextInt(256);
          } else {
            String s = stems[random.nextInt(stems.length)] + (pick < 5 ? "" : random.nextInt(pick * 30));
            value = s.getBytes(StandardCharsets.UTF_8);
            if (pick == 9 && value.length > 0) {
              value[random.nextInt(value.length)] = (byte) random.nextInt(256);
            }
          }
          v.setSafe(i, value);
        }
        v.setValueCount(ROWS);
        check(v);
      }
    }
  }

  @Test
  void utf8ValuesSharingTheirFirstEightBytesAreOrderedByTheRest() {
    for (long seed = 0; seed < 4; seed++) {
      Random random = new Random(seed);
      try (VarCharVector v = new VarCharVector(field(ArrowType.Utf8.INSTANCE), allocator)) {
        v.allocateNew();
        for (int i = 0; i < ROWS; i++) {
          if (seed == 3 && i % 5 == 0) {
            v.setNull(i);
            continue;
          }
          // Every key is "prefix00": min and max are decided past byte 8, some past byte 16.
          String tail = random.nextInt(3) == 0 ? "-suffix-" + "x".repeat(random.nextInt(3)) : "";
          v.setSafe(i, ("prefix00" + tail + random.nextInt(100000)).getBytes(StandardCharsets.UTF_8));
        }
        v.setValueCount(ROWS);
        check(v);
      }
    }
  }

  private void check(FieldVector vector) {
    ColumnKind kind = ColumnKind.of(vector.getField());
    try (ColumnSlicer slicer = new ColumnSlicer(kind, allocator)) {
      for (int[] range : RANGES) {
        ColumnSlice slice = slicer.slice(vector, range[0], range[1]);
        assertEquals(expected(kind, vector, range[0], range[1]),
            stats.collect(kind, vector.getField(), slice),
            vector.getField() + " rows " + range[0] + "+" + range[1]);
      }
    }
  }

  /** The statistics rules of docs/log-format.md, one boxed value at a time. */
  private static ColumnStats expected(ColumnKind kind, FieldVector v, int from, int n) {
    long nulls = 0;
    Object min = null;
    Object max = null;
    boolean nan = false;
    for (int i = from; i < from + n; i++) {
      Object value = v.getObject(i);
      if (value == null) {
        nulls++;
        continue;
      }
      value = switch (value) {
        case Byte b -> (long) b;
        case Short s -> (long) s;
        case Integer x -> (long) x;
        case Float f -> (double) f;
        case org.apache.arrow.vector.util.Text t -> t.copyBytes();
        default -> value;
      };
      if (value instanceof Double d && d.isNaN()) {
        nan = true;
        continue;
      }
      if (min == null || compare(value, min) < 0) {
        min = value;
      }
      if (max == null || compare(value, max) > 0) {
        max = value;
      }
    }
    if (nulls == n || nan) {
      return ColumnStats.unknown(nulls);
    }
    boolean exact = true;
    if (min instanceof byte[] b && b.length > StatsCollector.MAX_UTF8_BOUND) {
      min = Arrays.copyOf(b, StatsCollector.MAX_UTF8_BOUND);
      exact = false;
    }
    if (max instanceof byte[] b && b.length > StatsCollector.MAX_UTF8_BOUND) {
      max = StatsCollector.roundUp(Arrays.copyOf(b, StatsCollector.MAX_UTF8_BOUND));
      exact = false;
    }
    return new ColumnStats(nulls, min, max, exact);
  }

  @SuppressWarnings("unchecked")
  private static int compare(Object a, Object b) {
    if (a instanceof byte[] x) {
      return Arrays.compareUnsigned(x, (byte[]) b);
    }
    if (a instanceof Boolean x) {
      return Boolean.compare(x, (Boolean) b);
    }
    return ((Comparable<Object>) a).compareTo(b);
  }

  private static Field field(ArrowType type) {
    return new Field("c", FieldType.nullable(type), null);
  }
}
