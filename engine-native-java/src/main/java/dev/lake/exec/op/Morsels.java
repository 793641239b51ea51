package dev.lake.exec.op;

import dev.lake.engine.ScanUnit;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * One execution of a pipeline (a scan with filters, projections and hash join probes stacked on
 * it) cut into morsels: the scan's units, and copies of the pipeline over any of them, which may
 * run on several threads at once. What the copies share (the hash tables their probes read) is
 * built before the first copy opens and released by {@link #close()}, after every copy is closed.
 */
public final class Morsels implements AutoCloseable {
  private final List<ScanUnit> units;
  private final Function<List<ScanUnit>, Operator> open;
  private final AutoCloseable shared;

  /**
   * @param open opens a copy of the pipeline over some units; must be thread-safe
   * @param shared released by {@link #close()}, or null
   */
  public Morsels(List<ScanUnit> units, Function<List<ScanUnit>, Operator> open, AutoCloseable shared) {
    this.units = List.copyOf(units);
    this.open = open;
    this.shared = shared;
  }

  /** The morsels, in scan order. */
  public List<ScanUnit> units() {
    return units;
  }

  /** A copy of the pipeline over {@code units}; the caller closes it. Thread-safe. */
  public Operator open(List<ScanUnit> units) {
    return open.apply(units);
  }

  /**
   * The pipeline with {@code stage} stacked on each copy; {@code state}, shared by the copies, is
   * released after this pipeline's own state on {@link #close()}.
   */
  public Morsels then(UnaryOperator<Operator> stage, AutoCloseable state) {
    return new Morsels(units, us -> {
      Operator op = open(us);
      try {
        return stage.apply(op);
      } catch (RuntimeException e) {
        op.close();
        throw e;
      }
    }, () -> {
      try (AutoCloseable s = state) {
        close();
      }
    });
  }

  @Override
  public void close() {
    if (shared == null) {
      return;
    }
    try {
      shared.close();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
