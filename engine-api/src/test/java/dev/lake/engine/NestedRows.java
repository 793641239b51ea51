package dev.lake.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;

/**
 * Robot-episode rows with struct, list, large-list and fixed-size-list columns, nested up to
 * three levels, where every value is a function of the row id and NULL appears at every level
 * (null structs, null fields, null lists, empty lists, null elements). The typed models
 * ({@link #video}, {@link #embedding}, ...) are the independent answer tests check against;
 * {@link #batch} writes them into Arrow vectors.
 *
 * <pre>
 *   id         int64 NOT NULL
 *   start_ts   timestamp(us, UTC) NOT NULL        START + id seconds
 *   video      struct&lt;uri: utf8 NOT NULL, start_ts: timestamp(us, UTC), frames: int32&gt;
 *   embedding  fixed_size_list&lt;float32&gt;[8]
 *   tags       list&lt;utf8&gt;
 *   events     list&lt;struct&lt;t: int64 NOT NULL, label: utf8&gt;&gt;
 *   samples    large_list&lt;int16&gt;
 *   meta       struct&lt;robot: struct&lt;name: utf8, arm: int8&gt;, joints: list&lt;float64&gt;,
 *                     gain: decimal(10, 2)&gt;
 * </pre>
 */
public final class NestedRows {

  public static final int EMBEDDING = 8;
  /** 2026-01-05T00:00:00Z in microseconds. */
  public static final long START = 1_767_571_200_000_000L;
  public static final String[] ROBOTS = {"atlas", "spot", "franka"};

  private static final ArrowType TIMESTAMP = new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");

  public static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("start_ts", FieldType.notNullable(TIMESTAMP), null),
      nullable("video", ArrowType.Struct.INSTANCE,
          new Field("uri", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
          nullable("start_ts", TIMESTAMP),
          nullable("frames", new ArrowType.Int(32, true))),
      nullable("embedding", new ArrowType.FixedSizeList(EMBEDDING),
          nullable("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))),
      nullable("tags", ArrowType.List.INSTANCE, nullable("item", ArrowType.Utf8.INSTANCE)),
      nullable("events", ArrowType.List.INSTANCE,
          nullable("item", ArrowType.Struct.INSTANCE,
              new Field("t", FieldType.notNullable(new ArrowType.Int(64, true)), null),
              nullable("label", ArrowType.Utf8.INSTANCE))),
      nullable("samples", ArrowType.LargeList.INSTANCE, nullable("item", new ArrowType.Int(16, true))),
      nullable("meta", ArrowType.Struct.INSTANCE,
          nullable("robot", ArrowType.Struct.INSTANCE,
              nullable("name", ArrowType.Utf8.INSTANCE),
              nullable("arm", new ArrowType.Int(8, true))),
          nullable("joints", ArrowType.List.INSTANCE,
              nullable("item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))),
          nullable("gain", new ArrowType.Decimal(10, 2, 128)))));

  private NestedRows() {}

  public static Field nullable(String name, ArrowType type, Field... children) {
    return new Field(name, FieldType.nullable(type), List.of(children));
  }

  /** The schema of just {@code columns}, in that order. */
  public static Schema columns(String... columns) {
    return new Schema(Arrays.stream(columns).map(SCHEMA::findField).toList());
  }

  // ---------------------------------------------------------------- the model

  public record Video(String uri, Long startTs, Integer frames) {}

  public record Event(long t, String label) {}

  public record Robot(String name, byte arm) {}

  public record Meta(Robot robot, List<Double> joints, BigDecimal gain) {}

  public static long startTs(long id) {
    return START + id * 1_000_000L;
  }

  public static Video video(long id) {
    if (id % 11 == 0) {
      return null;
    }
    return new Video("s3://robots/ep" + id + ".mp4",
        id % 7 == 3 ? null : startTs(id) + 500,
        id % 5 == 1 ? null : (int) (id % 1000) * 3);
  }

  public static List<Float> embedding(long id) {
    if (id % 13 == 0) {
      return null;
    }
    List<Float> out = new ArrayList<>();
    for (int j = 0; j < EMBEDDING; j++) {
      out.add((id + j) % 17 == 0 ? null : (id % 100) / 4f + j);
    }
    return out;
  }

  public static List<String> tags(long id) {
    if (id % 9 == 0) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (int j = 0; j < id % 4; j++) {
      out.add(j == 1 && id % 2 == 0 ? null : "t" + (id % 50) + "-" + j);
    }
    return out;
  }

  public static List<Event> events(long id) {
    if (id % 10 == 0) {
      return null;
    }
    List<Event> out = new ArrayList<>();
    for (int j = 0; j < id % 3; j++) {
      out.add((id + j) % 5 == 0 ? null : new Event(id * 10 + j, j == 1 ? null : "e" + j));
    }
    return out;
  }

  public static List<Short> samples(long id) {
    if (id % 6 == 0) {
      return null;
    }
    List<Short> out = new ArrayList<>();
    for (int j = 0; j < id % 3 + 1; j++) {
      out.add(j == 2 ? null : (short) (id + j));
    }
    return out;
  }

  public static Meta meta(long id) {
    if (id % 8 == 0) {
      return null;
    }
    Robot robot = id % 8 == 1 ? null
        : new Robot(id % 8 == 2 ? null : ROBOTS[(int) (id % 3)], (byte) (id % 7));
    List<Double> joints = null;
    if (id % 8 != 3) {
      joints = new ArrayList<>();
      for (int j = 0; j < id % 3; j++) {
        joints.add(id * 0.25 + j);
      }
    }
    return new Meta(robot, joints, BigDecimal.valueOf(id % 10_000, 2));
  }

  /**
   * Column {@code column} of row {@code id} the way Arrow's {@code getObject} shows it: structs
   * as maps without their NULL fields, lists as lists, strings as {@link Text}, timestamps as
   * longs.
   */
  public static Object expected(String column, long id) {
    return switch (column) {
      case "id" -> id;
      case "start_ts" -> startTs(id);
      case "video" -> {
        Video v = video(id);
        yield v == null ? null : map("uri", new Text(v.uri()), "start_ts", v.startTs(), "frames", v.frames());
      }
      case "embedding" -> embedding(id);
      case "tags" -> tags(id) == null ? null : tags(id).stream().map(s -> s == null ? null : new Text(s)).toList();
      case "events" -> events(id) == null ? null : events(id).stream()
          .map(e -> e == null ? null : map("t", e.t(), "label", e.label() == null ? null : new Text(e.label())))
          .toList();
      case "samples" -> samples(id);
      case "meta" -> {
        Meta m = meta(id);
        yield m == null ? null : map(
            "robot", m.robot() == null ? null : map("name", m.robot().name() == null ? null
                : new Text(m.robot().name()), "arm", m.robot().arm()),
            "joints", m.joints(), "gain", m.gain());
      }
      default -> throw new IllegalArgumentException("no column " + column);
    };
  }

  private static Map<String, Object> map(Object... keysAndValues) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      if (keysAndValues[i + 1] != null) {
        out.put((String) keysAndValues[i], keysAndValues[i + 1]);
      }
    }
    return out;
  }

  /** Checks every column of row {@code row} of {@code root} against the model of its id. */
  public static void assertRow(VectorSchemaRoot root, int row) {
    long id = ((BigIntVector) root.getVector("id")).get(row);
    for (FieldVector v : root.getFieldVectors()) {
      String column = v.getField().getName();
      assertEquals(normalize(expected(column, id)), normalize(v.getObject(row)),
          "column " + column + " of row " + id);
    }
  }

  /** Checks every row of {@code root} with {@link #assertRow}; returns their ids in order. */
  public static List<Long> assertRows(VectorSchemaRoot root) {
    List<Long> ids = new ArrayList<>(root.getRowCount());
    for (int r = 0; r < root.getRowCount(); r++) {
      assertRow(root, r);
      ids.add(((BigIntVector) root.getVector("id")).get(r));
    }
    return ids;
  }

  /** Lists and maps as plain collections, so {@code equals} compares contents only. */
  private static Object normalize(Object value) {
    return switch (value) {
      case null -> null;
      case List<?> l -> l.stream().map(NestedRows::normalize).toList();
      case Map<?, ?> m -> {
        Map<Object, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, normalize(v)));
        yield out;
      }
      default -> value;
    };
  }

  // ---------------------------------------------------------------- Arrow

  /** Rows {@code first .. first + rows - 1} with {@code schema}'s columns (a subset of {@link #SCHEMA}). */
  public static VectorSchemaRoot batch(Schema schema, BufferAllocator allocator, long first, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    try {
      root.allocateNew();
      for (FieldVector v : root.getFieldVectors()) {
        for (int i = 0; i < rows; i++) {
          set(v, i, first + i);
        }
        v.setValueCount(rows);
      }
      root.setRowCount(rows);
      return root;
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
  }

  private static void set(FieldVector v, int i, long id) {
    switch (v.getField().getName()) {
      case "id" -> ((BigIntVector) v).setSafe(i, id);
      case "start_ts" -> ((TimeStampMicroTZVector) v).setSafe(i, startTs(id));
      case "video" -> {
        StructVector s = (StructVector) v;
        Video video = video(id);
        if (video == null) {
          s.setNull(i);
          ((VarCharVector) s.getChild("uri")).setSafe(i, new byte[0]);
          return;
        }
        s.setIndexDefined(i);
        ((VarCharVector) s.getChild("uri")).setSafe(i, utf8(video.uri()));
        setOrNull((TimeStampMicroTZVector) s.getChild("start_ts"), i, video.startTs());
        setOrNull((IntVector) s.getChild("frames"), i, video.frames());
      }
      case "embedding" -> {
        FixedSizeListVector l = (FixedSizeListVector) v;
        Float4Vector items = (Float4Vector) l.getDataVector();
        List<Float> values = embedding(id);
        if (values == null) {
          l.setNull(i);
        } else {
          l.setNotNull(i);
        }
        for (int j = 0; j < EMBEDDING; j++) {
          Float x = values == null ? null : values.get(j);
          if (x == null) {
            items.setNull(i * EMBEDDING + j);
          } else {
            items.setSafe(i * EMBEDDING + j, x);
          }
        }
      }
      case "tags" -> list((ListVector) v, i, tags(id), (items, at, s) -> {
        if (s == null) {
          ((VarCharVector) items).setNull(at);
        } else {
          ((VarCharVector) items).setSafe(at, utf8(s));
        }
      });
      case "events" -> list((ListVector) v, i, events(id), (items, at, e) -> {
        StructVector s = (StructVector) items;
        if (e == null) {
          s.setNull(at);
          ((BigIntVector) s.getChild("t")).setSafe(at, 0);
          ((VarCharVector) s.getChild("label")).setNull(at);
          return;
        }
        s.setIndexDefined(at);
        ((BigIntVector) s.getChild("t")).setSafe(at, e.t());
        VarCharVector label = (VarCharVector) s.getChild("label");
        if (e.label() == null) {
          label.setNull(at);
        } else {
          label.setSafe(at, utf8(e.label()));
        }
      });
      case "samples" -> {
        LargeListVector l = (LargeListVector) v;
        List<Short> values = samples(id);
        if (values == null) {
          l.setNull(i);
          return;
        }
        long at = l.startNewValue(i);
        SmallIntVector items = (SmallIntVector) l.getDataVector();
        for (int j = 0; j < values.size(); j++) {
          setOrNull(items, (int) at + j, values.get(j) == null ? null : (int) values.get(j));
        }
        l.endValue(i, values.size());
      }
      case "meta" -> {
        StructVector s = (StructVector) v;
        Meta meta = meta(id);
        StructVector robot = (StructVector) s.getChild("robot");
        ListVector joints = (ListVector) s.getChild("joints");
        DecimalVector gain = (DecimalVector) s.getChild("gain");
        if (meta == null) {
          s.setNull(i);
          robot.setNull(i);
          joints.setNull(i);
          gain.setNull(i);
          return;
        }
        s.setIndexDefined(i);
        if (meta.robot() == null) {
          robot.setNull(i);
        } else {
          robot.setIndexDefined(i);
          VarCharVector name = (VarCharVector) robot.getChild("name");
          if (meta.robot().name() == null) {
            name.setNull(i);
          } else {
            name.setSafe(i, utf8(meta.robot().name()));
          }
          ((TinyIntVector) robot.getChild("arm")).setSafe(i, meta.robot().arm());
        }
        list(joints, i, meta.joints(), (items, at, x) -> ((Float8Vector) items).setSafe(at, x));
        gain.setSafe(i, meta.gain());
      }
      default -> throw new IllegalArgumentException("no column " + v.getField().getName());
    }
  }

  private interface Element<T> {
    void set(FieldVector items, int at, T value);
  }

  private static <T> void list(ListVector l, int i, List<T> values, Element<T> element) {
    if (values == null) {
      l.setNull(i);
      return;
    }
    int at = l.startNewValue(i);
    for (int j = 0; j < values.size(); j++) {
      element.set(l.getDataVector(), at + j, values.get(j));
    }
    l.endValue(i, values.size());
  }

  private static void setOrNull(TimeStampMicroTZVector v, int i, Long value) {
    if (value == null) {
      v.setNull(i);
    } else {
      v.setSafe(i, value);
    }
  }

  private static void setOrNull(IntVector v, int i, Integer value) {
    if (value == null) {
      v.setNull(i);
    } else {
      v.setSafe(i, value);
    }
  }

  private static void setOrNull(SmallIntVector v, int i, Integer value) {
    if (value == null) {
      v.setNull(i);
    } else {
      v.setSafe(i, value);
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
