package dev.lake.engine.log.segment;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * How a struct, list, large-list or fixed-size-list column is laid out in a chunk, nested to any
 * depth over the flat {@link ColumnKind}s: the Arrow buffers of every node of the column's tree
 * in pre-order (a node's own buffers, then each child's subtree in child order), exactly as Arrow
 * IPC orders them, each exactly as long as its node's values need:
 *
 * <ul>
 *   <li>struct: validity; its children have the struct's length
 *   <li>list: validity, int32 offsets (length + 1, starting at 0); the child has
 *       {@code offsets[length]} values
 *   <li>large list: validity, int64 offsets likewise
 *   <li>fixed-size list of size k: validity; the child has {@code length * k} values
 *   <li>a flat leaf: its {@link ColumnKind} buffers (validity, [int32 offsets], values)
 * </ul>
 *
 * The footer lists, per chunk, each node's length and null count in the same pre-order.
 */
public final class NestedLayout {

  private NestedLayout() {}

  private enum Shape { STRUCT, LIST, LARGE_LIST, FIXED_SIZE_LIST }

  /** Whether {@code field} is a struct or list column (stored by this class, not a flat kind). */
  static boolean isNested(Field field) {
    return shape(field) != null;
  }

  private static Shape shape(Field field) {
    return switch (field.getType()) {
      case ArrowType.Struct s -> Shape.STRUCT;
      case ArrowType.List l -> Shape.LIST;
      case ArrowType.LargeList l -> Shape.LARGE_LIST;
      case ArrowType.FixedSizeList l -> Shape.FIXED_SIZE_LIST;
      default -> null;
    };
  }

  /**
   * Why segments cannot store column {@code field}, naming the offending part (such as
   * {@code 'video.tags'}), or null when they can: every flat kind, and structs and lists of
   * storable children to any depth. Maps, unions, dictionary-encoded and other types are refused.
   */
  public static String unsupported(Field field) {
    return problem(field, field.getName());
  }

  private static String problem(Field field, String path) {
    if (field.getDictionary() != null) {
      return "'" + path + "' is dictionary-encoded";
    }
    Shape shape = shape(field);
    if (shape == null) {
      return ColumnKind.of(field) != null ? null : "'" + path + "' has type " + field.getType();
    }
    List<Field> children = field.getChildren();
    if (shape == Shape.STRUCT && children.isEmpty()) {
      return "'" + path + "' is a struct without fields";
    }
    if (shape != Shape.STRUCT && children.size() != 1) {
      return "'" + path + "' is a list without one element type";
    }
    for (Field child : children) {
      String p = problem(child, shape == Shape.STRUCT ? path + "." + child.getName() : path + "[]");
      if (p != null) {
        return p;
      }
    }
    return null;
  }

  // ------------------------------------------------------------------ writing

  /**
   * The chunk of every row of {@code vector}, a nested vector whose offsets start at 0 (as a
   * split or an append leaves them): views of its buffers cut to the exact lengths, valid while
   * the vector is. Only a missing buffer (empty, as Arrow leaves the offsets of an empty child)
   * is made up, in heap memory.
   */
  static ColumnSlice slice(FieldVector vector) {
    List<ByteBuffer> buffers = new ArrayList<>();
    List<ChunkMeta.Node> nodes = new ArrayList<>();
    add(vector, vector.getValueCount(), buffers, nodes);
    return ColumnSlice.nested(vector.getValueCount(), buffers, nodes);
  }

  private static void add(FieldVector v, int count, List<ByteBuffer> buffers, List<ChunkMeta.Node> nodes) {
    ByteBuffer validity = validity(v.getValidityBuffer(), count);
    buffers.add(validity);
    nodes.add(new ChunkMeta.Node(count, Bits.zeros(validity, count)));
    switch (v) {
      case StructVector s -> {
        for (FieldVector child : s.getChildrenFromFields()) {
          add(child, count, buffers, nodes);
        }
      }
      case ListVector l -> add(l.getDataVector(), offsets(l.getOffsetBuffer(), count, 4, buffers), buffers, nodes);
      case LargeListVector l -> add(l.getDataVector(), offsets(l.getOffsetBuffer(), count, 8, buffers), buffers, nodes);
      case FixedSizeListVector l -> add(l.getDataVector(), Math.multiplyExact(count, l.getListSize()), buffers, nodes);
      default -> {
        ColumnKind kind = ColumnKind.of(v.getField());
        if (kind == null) {
          throw new IllegalArgumentException("column part '" + v.getField().getName() + "' has type "
              + v.getField().getType() + ", which the log format cannot store");
        }
        if (kind.variableWidth()) {
          int end = offsets(v.getOffsetBuffer(), count, 4, buffers);
          buffers.add(ColumnSlicer.view(v.getDataBuffer(), 0, end));
        } else {
          buffers.add(ColumnSlicer.view(v.getDataBuffer(), 0, kind.bufferLength(1, count)));
        }
      }
    }
  }

  /** The first {@code (count + 7) / 8} bytes; all set when the vector has no bitmap. */
  private static ByteBuffer validity(ArrowBuf bitmap, int count) {
    long bytes = (count + 7L) / 8;
    if (bitmap.capacity() >= bytes) {
      return ColumnSlicer.view(bitmap, 0, bytes);
    }
    byte[] ones = new byte[(int) bytes];
    Arrays.fill(ones, (byte) 0xFF);
    return ByteBuffer.wrap(ones);
  }

  /** Adds the {@code count + 1} offsets and returns the last, the child's value count. */
  private static int offsets(ArrowBuf offsets, int count, int width, List<ByteBuffer> buffers) {
    long bytes = (count + 1L) * width;
    if (count == 0 && offsets.capacity() < bytes) {
      buffers.add(ByteBuffer.allocate(width));
      return 0;
    }
    long first = width == 4 ? offsets.getInt(0) : offsets.getLong(0);
    long last = width == 4 ? offsets.getInt((long) count * 4) : offsets.getLong((long) count * 8);
    if (first != 0) {
      throw new IllegalStateException("nested offsets must start at 0, not " + first);
    }
    buffers.add(ColumnSlicer.view(offsets, 0, bytes));
    return Math.toIntExact(last);
  }

  // ------------------------------------------------------------------ reading

  /**
   * Checks a nested chunk's index against the column's type: as many nodes and buffers as the
   * tree has, the root {@code rows} long, children as long as their parent makes them, every
   * buffer as long as its node needs (the values of a list child and of variable-width leaves
   * are bounded by offsets, checked when read: {@link #checkOffsets}).
   */
  static void validate(Field field, ChunkMeta chunk, int rows) throws SegmentFormatException {
    Cursor at = new Cursor();
    validate(field, rows, chunk, at);
    if (at.buffer != chunk.bufferLengths().size() || at.node != chunk.nodes().size()
        || chunk.nodes().getFirst().nulls() != chunk.stats().nullCount()) {
      throw new SegmentFormatException("has a malformed nested chunk index");
    }
  }

  private static final class Cursor {
    int buffer;
    int node;
  }

  private static void validate(Field field, long expected, ChunkMeta chunk, Cursor at)
      throws SegmentFormatException {
    if (at.node >= chunk.nodes().size()) {
      throw new SegmentFormatException("has a malformed nested chunk index");
    }
    ChunkMeta.Node node = chunk.nodes().get(at.node++);
    int length = node.length();
    if ((expected >= 0 && length != expected) || length < 0 || node.nulls() < 0 || node.nulls() > length) {
      throw new SegmentFormatException("has a malformed nested chunk index");
    }
    Shape shape = shape(field);
    ColumnKind kind = shape == null ? ColumnKind.of(field) : null;
    if (shape == null && kind == null) {
      throw new SegmentFormatException("has a column part of a type it cannot hold: " + field);
    }
    expectBuffer(chunk, at, (length + 7L) / 8);
    if (shape == Shape.STRUCT) {
      for (Field child : field.getChildren()) {
        validate(child, length, chunk, at);
      }
    } else if (shape == Shape.LIST || shape == Shape.LARGE_LIST) {
      expectBuffer(chunk, at, (length + 1L) * (shape == Shape.LIST ? 4 : 8));
      validate(field.getChildren().getFirst(), -1, chunk, at);
    } else if (shape == Shape.FIXED_SIZE_LIST) {
      int size = ((ArrowType.FixedSizeList) field.getType()).getListSize();
      validate(field.getChildren().getFirst(), (long) length * size, chunk, at);
    } else {
      for (int i = 1; i < kind.bufferCount(); i++) {
        expectBuffer(chunk, at, kind.bufferLength(i, length));
      }
    }
  }

  private static void expectBuffer(ChunkMeta chunk, Cursor at, long length) throws SegmentFormatException {
    if (at.buffer >= chunk.bufferLengths().size()) {
      throw new SegmentFormatException("has a malformed nested chunk index");
    }
    long actual = chunk.bufferLengths().get(at.buffer++);
    if (actual < 0 || (length >= 0 && actual != length)) {
      throw new SegmentFormatException("has a malformed buffer length");
    }
  }

  /**
   * After the checksum passed: every offsets buffer starts at 0 and ends at its child's length
   * (or its values' byte length), so no vector reads past its buffers. Returns the problem, or
   * null.
   */
  static String checkOffsets(Field field, List<ArrowBuf> buffers, List<ChunkMeta.Node> nodes) {
    return checkOffsets(field, buffers, nodes, new Cursor());
  }

  private static String checkOffsets(Field field, List<ArrowBuf> buffers, List<ChunkMeta.Node> nodes, Cursor at) {
    int length = nodes.get(at.node++).length();
    at.buffer++; // validity
    Shape shape = shape(field);
    if (shape == Shape.STRUCT || shape == Shape.FIXED_SIZE_LIST) {
      for (Field child : field.getChildren()) {
        String problem = checkOffsets(child, buffers, nodes, at);
        if (problem != null) {
          return problem;
        }
      }
      return null;
    }
    if (shape == Shape.LIST || shape == Shape.LARGE_LIST) {
      ArrowBuf offsets = buffers.get(at.buffer++);
      boolean large = shape == Shape.LARGE_LIST;
      long first = large ? offsets.getLong(0) : offsets.getInt(0);
      long last = large ? offsets.getLong((long) length * 8) : offsets.getInt((long) length * 4);
      if (first != 0 || last != nodes.get(at.node).length()) {
        return "has inconsistent offsets in '" + field.getName() + "'";
      }
      return checkOffsets(field.getChildren().getFirst(), buffers, nodes, at);
    }
    if (ColumnKind.of(field).variableWidth()) {
      ArrowBuf offsets = buffers.get(at.buffer++);
      ArrowBuf data = buffers.get(at.buffer++);
      if (offsets.getInt(0) != 0 || offsets.getInt((long) length * 4) != data.capacity()) {
        return "has inconsistent offsets in '" + field.getName() + "'";
      }
      return null;
    }
    at.buffer++; // values
    return null;
  }
}
