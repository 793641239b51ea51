package dev.lake.exec;

/**
 * A computed column of one batch's live rows, held in plain Java arrays so kernels run
 * type-specialised loops without boxing (except decimals and strings). Index {@code i} is the
 * {@code i}-th live row of the batch it was computed from.
 */
public abstract sealed class Col permits Col.Longs, Col.Doubles, Col.Bools, Col.Objects {

  public final int size;
  /**
   * True when the producer knows no element is NULL (the null flags are then all false), so
   * consumers may run loops that never look at them. False means "may have NULLs".
   */
  private boolean noNulls;

  Col(int size) {
    this.size = size;
  }

  public final boolean noNulls() {
    return noNulls;
  }

  /** Records that no element is NULL; the caller guarantees it. Returns this column. */
  public final Col markNoNulls() {
    noNulls = true;
    return this;
  }

  public abstract boolean isNull(int i);

  /** The value at {@code i} boxed, or null; for keys and set membership, never on a hot loop. */
  public abstract Object get(int i);

  /** An empty column of the representation of {@code type}. */
  public static Col allocate(SqlType type, int size) {
    if (type.isLongBacked()) {
      return new Longs(size);
    }
    return switch (type.kind()) {
      case FLOAT32, FLOAT64 -> new Doubles(size);
      case BOOL -> new Bools(size);
      default -> new Objects(size);
    };
  }

  /** Integers, dates (days) and timestamps (microseconds). */
  public static final class Longs extends Col {
    public final long[] values;
    public final boolean[] nulls;

    public Longs(int size) {
      super(size);
      values = new long[size];
      nulls = new boolean[size];
    }

    /** The first {@code size} elements of the given arrays (kept, not copied). */
    public Longs(int size, long[] values, boolean[] nulls) {
      super(size);
      this.values = values;
      this.nulls = nulls;
    }

    @Override
    public boolean isNull(int i) {
      return nulls[i];
    }

    @Override
    public Object get(int i) {
      return nulls[i] ? null : values[i];
    }
  }

  public static final class Doubles extends Col {
    public final double[] values;
    public final boolean[] nulls;

    public Doubles(int size) {
      super(size);
      values = new double[size];
      nulls = new boolean[size];
    }

    /** The first {@code size} elements of the given arrays (kept, not copied). */
    public Doubles(int size, double[] values, boolean[] nulls) {
      super(size);
      this.values = values;
      this.nulls = nulls;
    }

    @Override
    public boolean isNull(int i) {
      return nulls[i];
    }

    @Override
    public Object get(int i) {
      return nulls[i] ? null : values[i];
    }
  }

  /** Booleans with SQL's third value (unknown) as null. */
  public static final class Bools extends Col {
    public final boolean[] values;
    public final boolean[] nulls;

    public Bools(int size) {
      super(size);
      values = new boolean[size];
      nulls = new boolean[size];
    }

    @Override
    public boolean isNull(int i) {
      return nulls[i];
    }

    @Override
    public Object get(int i) {
      return nulls[i] ? null : values[i];
    }

    /** Whether row {@code i} is TRUE (not FALSE, not unknown): what WHERE keeps. */
    public boolean isTrue(int i) {
      return values[i] && !nulls[i];
    }
  }

  /** Decimals ({@link java.math.BigDecimal}) and strings; a null element is SQL NULL. */
  public static final class Objects extends Col {
    public final Object[] values;

    public Objects(int size) {
      super(size);
      values = new Object[size];
    }

    @Override
    public boolean isNull(int i) {
      return values[i] == null;
    }

    @Override
    public Object get(int i) {
      return values[i];
    }
  }
}
