package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;

/**
 * One batch's values of a list-valued expression, flattened: for live row {@code i}, its
 * elements are {@code elements[start(i) .. start(i) + length(i))}, or the row is NULL. Lists read
 * from a column come straight from its Arrow element vector (one typed read of the elements
 * reached); computed lists ({@link java.util.List} values of a {@link Col.Objects}) are unboxed
 * once.
 */
public final class ListBatch {
  private final int[] start;
  /** Per row, its length, or -1 for NULL. */
  private final int[] length;
  private final Col elements;

  private ListBatch(int[] start, int[] length, Col elements) {
    this.start = start;
    this.length = length;
    this.elements = elements;
  }

  /** The values of {@code list} (a kernel of a list of {@code element}) over {@code batch}. */
  public static ListBatch of(Kernel list, SqlType element, Batch batch) {
    if (list instanceof NestedKernel nested) {
      NestedKernel.Located at = nested.lists(batch);
      return fromVector(at.vector(), at.rows(), nested.describe());
    }
    Col.Objects values = (Col.Objects) list.eval(batch);
    int n = values.size;
    int[] start = new int[n];
    int[] length = new int[n];
    List<Object> flat = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      start[i] = flat.size();
      if (values.values[i] == null) {
        length[i] = -1;
      } else {
        List<?> l = (List<?>) values.values[i];
        length[i] = l.size();
        flat.addAll(l);
      }
    }
    return new ListBatch(start, length, Vectors.fromObjects(element, flat));
  }

  /** Rows {@code rows} (-1: NULL) of the Arrow list vector {@code vector}. */
  static ListBatch fromVector(ValueVector vector, int[] rows, String what) {
    int n = rows.length;
    int[] start = new int[n];
    int[] length = new int[n];
    int total = 0;
    for (int i = 0; i < n; i++) {
      start[i] = total;
      length[i] = rows[i] < 0 ? -1 : (int) length(vector, rows[i], what);
      total = Math.addExact(total, Math.max(0, length[i]));
    }
    int[] positions = new int[total];
    int at = 0;
    for (int i = 0; i < n; i++) {
      int first = length[i] > 0 ? (int) start(vector, rows[i], what) : 0;
      for (int k = 0; k < length[i]; k++) {
        positions[at++] = first + k;
      }
    }
    FieldVector data = (FieldVector) dataVector(vector, what);
    return new ListBatch(start, length, Vectors.read(data, new Batch(null, positions, total)));
  }

  /**
   * Every row of the Arrow list vector {@code vector} as lists of {@code element} values, each
   * element cast from the vector's element type (how INSERT fills a list column).
   *
   * @throws ExecutionException if an element does not convert
   */
  public static Col.Objects read(FieldVector vector, SqlType element) {
    int n = vector.getValueCount();
    int[] rows = new int[n];
    for (int i = 0; i < n; i++) {
      rows[i] = vector.isNull(i) ? -1 : i;
    }
    FieldVector data = (FieldVector) dataVector(vector, vector.getField().getName());
    SqlType from = SqlType.fromArrow(data.getField().getType(), true).orElseThrow(() ->
        new ExecutionException("cannot read a list of " + data.getField().getType()));
    Col.Objects lists = fromVector(vector, rows, vector.getField().getName()).boxed();
    for (int i = 0; i < n; i++) {
      if (lists.values[i] instanceof List<?> l) {
        List<Object> cast = new ArrayList<>(l.size());
        for (Object v : l) {
          cast.add(v == null || from.equals(element) ? v : CastKernel.castValue(v, from, element));
        }
        lists.values[i] = cast;
      }
    }
    return lists;
  }

  public int size() {
    return length.length;
  }

  public boolean isNull(int i) {
    return length[i] < 0;
  }

  /** The number of elements of row {@code i} (not NULL). */
  public int length(int i) {
    return length[i];
  }

  /** Where row {@code i}'s elements begin in {@link #elements()}. */
  public int start(int i) {
    return start[i];
  }

  /** Every element of every row, rows one after another. */
  public Col elements() {
    return elements;
  }

  /** Row {@code i} boxed as a list of element values, or null. */
  public List<Object> get(int i) {
    if (length[i] < 0) {
      return null;
    }
    List<Object> out = new ArrayList<>(length[i]);
    for (int k = 0; k < length[i]; k++) {
      out.add(elements.get(start[i] + k));
    }
    return out;
  }

  /** Boxes every row, as a computed list column. */
  public Col.Objects boxed() {
    Col.Objects out = new Col.Objects(size());
    for (int i = 0; i < size(); i++) {
      out.values[i] = get(i);
    }
    return out;
  }

  static long start(ValueVector list, int row, String what) {
    return switch (list) {
      case ListVector l -> l.getOffsetBuffer().getInt((long) row * ListVector.OFFSET_WIDTH);
      case LargeListVector l -> l.getOffsetBuffer().getLong((long) row * LargeListVector.OFFSET_WIDTH);
      case FixedSizeListVector l -> (long) row * l.getListSize();
      default -> throw new ExecutionException(what + " is not a list");
    };
  }

  static long length(ValueVector list, int row, String what) {
    return switch (list) {
      case ListVector l -> l.getOffsetBuffer().getInt((long) (row + 1) * ListVector.OFFSET_WIDTH) - start(l, row, what);
      case LargeListVector l -> l.getOffsetBuffer().getLong((long) (row + 1) * LargeListVector.OFFSET_WIDTH)
          - start(l, row, what);
      case FixedSizeListVector l -> l.getListSize();
      default -> throw new ExecutionException(what + " is not a list");
    };
  }

  static ValueVector dataVector(ValueVector list, String what) {
    return switch (list) {
      case ListVector l -> l.getDataVector();
      case LargeListVector l -> l.getDataVector();
      case FixedSizeListVector l -> l.getDataVector();
      default -> throw new ExecutionException(what + " is not a list");
    };
  }
}
