package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.Cols;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.Vectors;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.AbstractStructVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;

/**
 * Evaluates {@link Expr.Nested}: follows the path through the column's Arrow vectors one step at
 * a time for all live rows at once, tracking per row its position in the current vector (or -1
 * once the value is NULL: a NULL struct or list on the way, an element index out of range), then
 * reads the scalar reached with the ordinary column readers. A struct field shares its struct's
 * positions; a list element's position comes from the list's offsets (or, for a fixed-size
 * list, its size). Nothing is copied but the values reached.
 */
public final class NestedKernel implements Kernel {

  private final Expr.Nested expr;
  /** Per step, the kernel of its element index; null for a struct field. */
  private final List<Kernel> indexes = new ArrayList<>();

  NestedKernel(Expr.Nested expr) {
    this.expr = expr;
    for (Expr.Step step : expr.path()) {
      indexes.add(step instanceof Expr.Step.Element e ? Kernel.compile(e.index()) : null);
    }
  }

  @Override
  public Col eval(Batch batch) {
    Reached at = locate(batch);
    ValueVector reached = at.vector();
    int[] rows = at.rows();
    int n = rows.length;
    return switch (expr.result()) {
      case IS_NULL -> {
        Col.Bools out = new Col.Bools(n);
        for (int i = 0; i < n; i++) {
          out.values[i] = rows[i] < 0;
        }
        yield out;
      }
      case CARDINALITY -> {
        Col.Longs out = new Col.Longs(n);
        for (int i = 0; i < n; i++) {
          if (rows[i] < 0) {
            out.nulls[i] = true;
          } else {
            out.values[i] = length(reached, rows[i]);
          }
        }
        yield out;
      }
      case VALUE -> {
        if (expr.type().kind() == dev.lake.exec.SqlType.Kind.LIST) {
          yield ListBatch.fromVector(reached, rows, expr.describe()).boxed();
        }
        if (!(reached instanceof FieldVector leaf) || !leaf.getField().getChildren().isEmpty()) {
          throw new ExecutionException(expr.describe() + " is not a scalar value");
        }
        int[] selection = new int[n];
        int[] gather = new int[n];
        int live = 0;
        for (int i = 0; i < n; i++) {
          if (rows[i] < 0) {
            gather[i] = -1;
          } else {
            gather[i] = live;
            selection[live++] = rows[i];
          }
        }
        Col values = Vectors.read(leaf, new Batch(null, selection, live));
        yield Cols.gather(values, expr.type(), gather, n);
      }
    };
  }

  /**
   * Writes the struct or list value the path reaches, for every live row, into {@code target}
   * (of the reached value's type): how a projection passes a nested value through.
   */
  public void copyInto(Batch batch, FieldVector target) {
    Reached at = locate(batch);
    int[] rows = at.rows();
    target.setInitialCapacity(rows.length);
    target.allocateNew();
    for (int i = 0; i < rows.length; i++) {
      if (rows[i] < 0) {
        target.setNull(i);
      } else {
        target.copyFromSafe(rows[i], i, at.vector());
      }
    }
    target.setValueCount(rows.length);
  }

  /** How SQL spells the value this kernel reads, for messages. */
  String describe() {
    return expr.describe();
  }

  /** A list vector the path reaches and, per live row, its position there or -1 for NULL. */
  public record Located(ValueVector vector, int[] rows) {}

  /**
   * The list value the path reaches for every live row, where it lies: how list functions read
   * elements without boxing them.
   *
   * @throws ExecutionException if the value reached is not a list
   */
  public Located lists(Batch batch) {
    Reached at = locate(batch);
    ListBatch.dataVector(at.vector(), expr.describe());
    return new Located(at.vector(), at.rows());
  }

  /** The vector a path reaches and, per live row, its position there or -1 for NULL. */
  private record Reached(ValueVector vector, int[] rows) {}

  /** Follows the path for every live row. */
  private Reached locate(Batch batch) {
    ValueVector vector = batch.root().getVector(expr.column());
    int n = batch.count();
    int[] rows = new int[n];
    for (int i = 0; i < n; i++) {
      rows[i] = batch.row(i);
    }
    dropNulls(vector, rows);
    for (int s = 0; s < expr.path().size(); s++) {
      switch (expr.path().get(s)) {
        case Expr.Step.Member m -> {
          if (!(vector instanceof AbstractStructVector struct)) {
            throw new ExecutionException(expr.describe() + ": not a struct at ." + m.name());
          }
          vector = struct.getChildByOrdinal(m.child());
        }
        case Expr.Step.Element e -> {
          Col.Longs index = (Col.Longs) indexes.get(s).eval(batch);
          for (int i = 0; i < n; i++) {
            if (rows[i] >= 0) {
              long k = index.nulls[i] ? 0 : index.values[i];
              long length = length(vector, rows[i]);
              rows[i] = k >= 1 && k <= length ? (int) (start(vector, rows[i]) + k - 1) : -1;
            }
          }
          vector = switch (vector) {
            case ListVector l -> l.getDataVector();
            case LargeListVector l -> l.getDataVector();
            case FixedSizeListVector l -> l.getDataVector();
            default -> throw new ExecutionException(expr.describe() + ": not a list");
          };
        }
      }
      dropNulls(vector, rows);
    }
    return new Reached(vector, rows);
  }

  private static void dropNulls(ValueVector vector, int[] rows) {
    for (int i = 0; i < rows.length; i++) {
      if (rows[i] >= 0 && vector.isNull(rows[i])) {
        rows[i] = -1;
      }
    }
  }

  private long start(ValueVector list, int row) {
    return switch (list) {
      case ListVector l -> l.getOffsetBuffer().getInt((long) row * ListVector.OFFSET_WIDTH);
      case LargeListVector l -> l.getOffsetBuffer().getLong((long) row * LargeListVector.OFFSET_WIDTH);
      case FixedSizeListVector l -> (long) row * l.getListSize();
      default -> throw new ExecutionException(expr.describe() + ": not a list");
    };
  }

  private long length(ValueVector list, int row) {
    return switch (list) {
      case ListVector l -> l.getOffsetBuffer().getInt((long) (row + 1) * ListVector.OFFSET_WIDTH) - start(l, row);
      case LargeListVector l -> l.getOffsetBuffer().getLong((long) (row + 1) * LargeListVector.OFFSET_WIDTH) - start(l, row);
      case FixedSizeListVector l -> l.getListSize();
      default -> throw new ExecutionException(expr.describe() + ": not a list");
    };
  }
}
