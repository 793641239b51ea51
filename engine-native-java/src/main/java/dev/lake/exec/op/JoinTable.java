package dev.lake.exec.op;

import dev.lake.engine.ScanUnit;
import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.Cols;
import dev.lake.exec.HeapBudget;
import dev.lake.exec.QueryControl;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import dev.lake.exec.expr.Expr;
import dev.lake.exec.expr.Kernel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The build side of a hash join: the build rows in columns, their key columns, and an index
 * over the rows whose keys can match: an array indexed by the value of a dense integer key (the
 * direct layout, no hashing), else rows laid out by bucket (one integer key) or a chained hash
 * table ({@code head} per bucket, {@code chain} per row). Immutable once built, so any number of
 * probe threads read one table without locks. Its heap is charged to the query's allocator
 * ({@link HeapBudget}) until {@link #close()}.
 *
 * <p>A parallel build partitions the work by morsel, not the table: each worker drains morsels
 * of the build pipeline into columns and key columns of its own (no sharing, no locks); the
 * parts are concatenated in morsel order, one column per task on the workers; then one pass
 * indexes the rows (hashing them first unless the layout is direct). That pass is a few percent of a build; run by several workers
 * over ranges of buckets it was several times slower, because workers walking the rows in step
 * write neighbouring {@code chain} entries (false sharing), and a concurrent table would need
 * atomics and lose the order below. Every chain lists its rows in ascending order, so the table,
 * and so the order of the join's output, is the same as a serial build's.
 */
public final class JoinTable implements AutoCloseable {
  /**
   * Larger builds keep chains: laying rows out by bucket scatters every row to a random place in
   * arrays far larger than the caches, which costs more than the probes save when a big build
   * side meets a small probe side (TPC-H Q4's semi join).
   */
  private static final int BUCKETED_MAX_ROWS = 1 << 20;

  /**
   * An integer key whose values span at most this many slots per build row (plus
   * {@link #DIRECT_SLACK}) is indexed directly by value: one array load finds a row, with no hash
   * computed on either side and no bucket scanned. Dense keys (surrogate and foreign keys) are
   * the common case; a key that skips values (TPC-H's order keys use one in four) and a quarter of
   * whose rows pass a filter still qualifies, since one load into a larger array beats the three
   * dependent loads of a bucket. Sparser keys use the hash layouts, which stay smaller.
   */
  private static final int DIRECT_SLOTS_PER_ROW = 16;

  /**
   * Hashed builds of at most this many rows carry a {@link #hashFilter}: a build side filtered
   * down to a few rows usually meets probe rows that mostly miss (TPC-H Q17 probes 6M lineitem
   * rows, twice, against 204 parts), and each miss walked a bucket or chain whose length the
   * processor cannot predict. The filter has {@value #FILTER_BITS_PER_ROW} bits per row (one set
   * per row, so about 3% of missing rows pass it) and stays within 512 KB, in the L2 cache.
   */
  static final int FILTER_MAX_ROWS = 1 << 17;
  private static final int FILTER_BITS_PER_ROW = 32;
  private static final int DIRECT_SLACK = 1 << 16;
  private static final int DIRECT_MAX_SHARING = 2;

  /** The build columns the join outputs; null where the column is in {@link #strings}. */
  final Col[] columns;
  /** String build columns as UTF-8 bytes, or null entries. */
  final Utf8Column[] strings;
  /** Fixed-width build columns as their vectors' bytes, or null entries. */
  final FixedColumn[] fixed;
  /**
   * Struct and list build columns (the engine passes them through) as Arrow vectors of all build
   * rows, owned by this table until {@link #close()}; null entries for the other columns.
   */
  final FieldVector[] nested;
  final Col[] keys;
  /**
   * Bit {@code hash >>> filterShift} is set for every build row's key hash: a probe row whose bit
   * is clear matches no row. Null in the direct layout and for builds over
   * {@link #FILTER_MAX_ROWS} rows.
   */
  final long[] hashFilter;
  final int filterShift;
  /** The rows' key hashes; null in the direct layout, which needs none. */
  final int[] hashes;
  /** Chained buckets for composite or null-safe keys: null when {@link #bucketStart} is used. */
  final int[] head;
  final int[] chain;
  /**
   * For one integer-backed key, not null-safe: the rows laid out bucket by bucket (ascending
   * rows within a bucket), bucket {@code b} at {@code [bucketStart[b], bucketStart[b + 1])} of
   * {@link #bucketKeys} and {@link #bucketRows}. A probe reads one bound pair and then adjacent
   * keys, where chains would jump between three arrays at random rows. Null otherwise.
   */
  final int[] bucketStart;
  final long[] bucketKeys;
  final int[] bucketRows;
  final int mask;
  /**
   * The direct layout, or nulls: for build rows whose key {@link #directKey} is
   * {@code directMin + v}, when no two rows share a value, the row at {@code directFirst[v]} (-1
   * when none); else the rows (ascending) at {@code directRows[directStart[v] ..
   * directStart[v + 1])}, so that a probe reads the rows of a value from one place instead of
   * following a chain through memory. Both arrays end with two more entries than values, an
   * empty one at {@code v = values} where a probe outside the range looks without a branch.
   * Rows with a NULL key that is not null-safe are not linked.
   */
  final int directKey;
  final int[] directFirst;
  final int[] directStart;
  final int[] directRows;
  final long directMin;
  private final HeapBudget heap;

  private JoinTable(Col[] columns, Raw raw, Col[] keys, int[] hashes, int[] head, int[] chain,
      int[] bucketStart, long[] bucketKeys, int[] bucketRows, int mask, HeapBudget heap) {
    this(columns, raw, keys, hashes, head, chain, bucketStart, bucketKeys, bucketRows, mask, -1, null, null,
        null, 0, heap);
  }

  private JoinTable(Col[] columns, Raw raw, Col[] keys, int[] hashes, int[] head, int[] chain,
      int[] bucketStart, long[] bucketKeys, int[] bucketRows, int mask, int directKey, int[] directFirst,
      int[] directStart, int[] directRows, long directMin, HeapBudget heap) {
    this.columns = columns;
    this.strings = raw.strings();
    this.fixed = raw.fixed();
    this.nested = raw.nested();
    this.keys = keys;
    this.hashes = hashes;
    this.head = head;
    this.chain = chain;
    this.bucketStart = bucketStart;
    this.bucketKeys = bucketKeys;
    this.bucketRows = bucketRows;
    this.mask = mask;
    this.directKey = directKey;
    this.directFirst = directFirst;
    this.directStart = directStart;
    this.directRows = directRows;
    this.directMin = directMin;
    this.heap = heap;
    if (hashes != null && hashes.length <= FILTER_MAX_ROWS) {
      int bits = Math.max(64, Integer.highestOneBit(Math.max(1, hashes.length) * FILTER_BITS_PER_ROW - 1) << 1);
      heap.charge(bits / 8);
      this.filterShift = 32 - Integer.numberOfTrailingZeros(bits);
      this.hashFilter = new long[bits >>> 6];
      for (int h : hashes) {
        int bit = h >>> filterShift;
        hashFilter[bit >>> 6] |= 1L << bit;
      }
    } else {
      this.hashFilter = null;
      this.filterShift = 0;
    }
  }

  /**
   * Drains {@code input} (the build side) into a table. The caller still closes {@code input}.
   *
   * @throws org.apache.arrow.memory.OutOfMemoryException if the table does not fit the budget
   */
  public static JoinTable build(Operator input, JoinSpec spec, int threads, BufferAllocator allocator) {
    try (HeapBudget partsHeap = new HeapBudget(allocator, "hash join build side");
        Part part = new Part(spec, partsHeap, allocator)) {
      Batch batch;
      while ((batch = input.next()) != null) {
        part.add(batch);
      }
      return assemble(List.of(part), spec, threads, allocator);
    }
  }

  /**
   * Drains the morsels of the build pipeline on {@code threads} workers into a table, in morsel
   * order. The caller still closes {@code input}.
   *
   * @throws org.apache.arrow.memory.OutOfMemoryException if the table does not fit the budget
   */
  public static JoinTable build(Morsels input, JoinSpec spec, int threads, BufferAllocator allocator) {
    List<ScanUnit> units = input.units();
    Part[] parts = new Part[units.size()];
    try (HeapBudget partsHeap = new HeapBudget(allocator, "hash join build side")) {
      MorselWorkers.run(units.size(), threads, QueryControl.of(allocator), (m, workers) -> {
        // Stored before it is filled, so the finally below closes its vectors whatever happens.
        Part part = parts[m] = new Part(spec, partsHeap, allocator);
        try (Operator op = input.open(List.of(units.get(m)))) {
          Batch batch;
          while (!workers.stopping() && (batch = op.next()) != null) {
            part.add(batch);
          }
        }
      });
      // No morsels (an empty table): one empty part, so each column is kept as its type says.
      try (Part empty = new Part(spec, partsHeap, allocator)) {
        return assemble(units.isEmpty() ? List.of(empty) : Arrays.asList(parts), spec, threads, allocator);
      }
    } finally {
      for (Part part : parts) {
        if (part != null) {
          part.close();
        }
      }
    }
  }

  private static JoinTable assemble(List<Part> parts, JoinSpec spec, int threads, BufferAllocator allocator) {
    // Parts filled by other threads are read here only after MorselWorkers joined them.
    QueryControl control = QueryControl.of(allocator);
    List<SqlType> buildTypes = spec.buildTypes();
    List<SqlType> keyTypes = spec.keyTypes();
    int n = 0;
    long partBytes = 0;
    for (Part p : parts) {
      n += p.rows;
      partBytes += p.bytes;
    }
    int capacity = Integer.highestOneBit(Math.max(4, n) * 2 - 1) << 1;
    HeapBudget heap = new HeapBudget(allocator, "hash join build side");
    Raw raw = null;
    try {
      heap.charge(partBytes + 4L * n + 4L * capacity + 4L * n);
      Col[] columns = new Col[spec.keepsBuildColumns() ? buildTypes.size() : 0];
      raw = new Raw(new Utf8Column[columns.length], new FixedColumn[columns.length],
          new FieldVector[columns.length]);
      Raw kept = raw;
      List<Field> fields = spec.combined().getFields()
          .subList(spec.probeTypes().size(), spec.combined().getFields().size());
      Col[] keys = new Col[keyTypes.size()];
      // One task per column and per key column: plain copies in morsel order.
      MorselWorkers.run(columns.length + keys.length, threads, control, (t, workers) -> {
        if (t < columns.length && buildTypes.get(t) == null) {
          kept.nested()[t] = concatNested(parts, t, fields.get(t), allocator);
        } else if (t < columns.length && allKept(parts, p -> p.strings, t, Utf8Column::toCol)) {
          kept.strings()[t] = Utf8Column.concat(parts.stream().flatMap(p -> p.strings.get(t).stream()).toList());
        } else if (t < columns.length
            && allKept(parts, p -> p.fixed, t, bytes -> bytes.toCol(fields.get(t), allocator))) {
          List<FixedColumn> all = parts.stream().flatMap(p -> p.fixed.get(t).stream()).toList();
          kept.fixed()[t] = FixedColumn.concat(all, all.isEmpty() ? 0 : all.getFirst().width);
        } else if (t < columns.length) {
          columns[t] = Cols.concat(parts.stream().flatMap(p -> p.columns.get(t).stream()).toList(),
              buildTypes.get(t));
        } else {
          int k = t - columns.length;
          keys[k] = Cols.concat(parts.stream().flatMap(p -> p.keys.get(k).stream()).toList(),
              keyTypes.get(k));
        }
      });
      boolean[] nullSafe = spec.nullSafe();
      boolean[] unmatchable = unmatchable(keys, nullSafe, n);
      for (int k = 0; k < keys.length; k++) {
        JoinTable direct = keys[k] instanceof Col.Longs && !nullSafe[k]
            ? direct(columns, raw, keys, k, n, unmatchable, spec.firstMatchOnly(), heap) : null;
        if (direct != null) {
          return direct;
        }
        control.check();
      }
      // Hashed only now: a direct table needs no hashes, and large build sides are mostly direct.
      int[] hashes = new int[n];
      for (Col key : keys) {
        Cols.hashInto(key, hashes, n);
      }
      if (keys.length == 1 && keys[0] instanceof Col.Longs key && !nullSafe[0] && n <= BUCKETED_MAX_ROWS) {
        heap.charge(8L * n);
        return bucketed(columns, raw, key, hashes, capacity, heap);
      }
      int[] head = new int[capacity];
      Arrays.fill(head, -1);
      int[] chain = new int[n];
      JoinTable table = new JoinTable(columns, raw, keys, hashes, head, chain, null, null, null,
          capacity - 1, heap);
      control.check();
      table.link(nullSafe);
      return table;
    } catch (RuntimeException | Error e) {
      heap.close();
      closeNested(raw);
      throw e;
    }
  }

  /**
   * Struct or list build column {@code c} of all parts as one vector (transfers ownership to the
   * caller): the single part's own vector when there is one, else a copy of the parts' rows in
   * order.
   */
  private static FieldVector concatNested(List<Part> parts, int c, Field field, BufferAllocator allocator) {
    if (parts.size() == 1) {
      return parts.getFirst().takeNested(c);
    }
    FieldVector all = field.createVector(allocator);
    try {
      int rows = 0;
      for (Part p : parts) {
        rows += p.rows;
      }
      all.setInitialCapacity(rows);
      all.allocateNew();
      int at = 0;
      for (Part p : parts) {
        FieldVector from = p.nested[c];
        for (int r = 0; r < p.rows; r++) {
          all.copyFromSafe(r, at++, from);
        }
      }
      all.setValueCount(at);
      return all;
    } catch (RuntimeException | Error e) {
      all.close();
      throw e;
    }
  }

  private static void closeNested(Raw raw) {
    if (raw != null) {
      for (FieldVector v : raw.nested()) {
        if (v != null) {
          v.close();
        }
      }
    }
  }

  /**
   * Whether build column {@code c} was kept as bytes ({@code raw}: strings or fixed-width) by
   * every part. A part whose batches came in another vector type kept values instead; then all
   * parts' bytes become values too.
   */
  private static <R> boolean allKept(List<Part> parts, Function<Part, List<List<R>>> raw, int c,
      Function<R, Col> toCol) {
    if (parts.stream().allMatch(p -> raw.apply(p).get(c) != null)) {
      return true;
    }
    for (Part p : parts) {
      List<R> kept = raw.apply(p).get(c);
      if (kept != null) {
        kept.forEach(bytes -> p.columns.get(c).add(toCol.apply(bytes)));
        raw.apply(p).set(c, null);
      }
    }
    return false;
  }

  /** The build columns kept as bytes or, when nested, as vectors, by kind; null entries for the others. */
  private record Raw(Utf8Column[] strings, FixedColumn[] fixed, FieldVector[] nested) {}

  /**
   * Chains the rows into their buckets. Rows go in from last to first, so each chain lists its
   * rows in ascending order. Rows with a NULL key that is not null-safe can match nothing and are
   * left out.
   */
  private void link(boolean[] nullSafe) {
    for (int r = hashes.length - 1; r >= 0; r--) {
      int b = hashes[r] & mask;
      if (hasNullKey(keys, nullSafe, r)) {
        continue;
      }
      chain[r] = head[b];
      head[b] = r;
    }
  }

  /**
   * The bucket-by-bucket layout of a single integer key (a counting sort of the rows by bucket,
   * stable, so each bucket lists its rows in ascending order, as a chain would). Rows with a NULL
   * key can match nothing and are left out.
   */
  private static JoinTable bucketed(Col[] columns, Raw raw, Col.Longs key, int[] hashes,
      int capacity, HeapBudget heap) {
    int mask = capacity - 1;
    int n = hashes.length;
    int[] start = new int[capacity + 1];
    boolean[] nulls = key.nulls;
    for (int r = 0; r < n; r++) {
      if (!nulls[r]) {
        start[(hashes[r] & mask) + 1]++;
      }
    }
    for (int b = 0; b < capacity; b++) {
      start[b + 1] += start[b];
    }
    int linked = start[capacity];
    long[] bucketKeys = new long[linked];
    int[] bucketRows = new int[linked];
    int[] next = Arrays.copyOf(start, capacity);
    long[] values = key.values;
    for (int r = 0; r < n; r++) {
      if (!nulls[r]) {
        int at = next[hashes[r] & mask]++;
        bucketKeys[at] = values[r];
        bucketRows[at] = r;
      }
    }
    return new JoinTable(columns, raw, new Col[] {key}, hashes, null, null, start, bucketKeys,
        bucketRows, mask, heap);
  }

  /**
   * The direct layout indexed by key {@code k} (a row per value when {@code firstMatchOnly} and
   * there is no other key), or null when its values are too sparse, or when
   * other keys exist and this one is not selective (more than {@value #DIRECT_MAX_SHARING} rows
   * per value on average: every probe would then walk rows that the other keys reject). Each
   * value lists its rows in ascending order, as a chain would.
   */
  private static JoinTable direct(Col[] columns, Raw raw, Col[] keys, int k, int n,
      boolean[] unmatchable, boolean firstMatchOnly, HeapBudget heap) {
    long[] values = ((Col.Longs) keys[k]).values;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int r = 0; r < n; r++) {
      if (unmatchable == null || !unmatchable[r]) {
        min = Math.min(min, values[r]);
        max = Math.max(max, values[r]);
      }
    }
    // A negative span is one that overflowed; no rows that can match leave min > max.
    long span = max - min;
    if (min > max || span < 0 || span >= (long) DIRECT_SLOTS_PER_ROW * n + DIRECT_SLACK) {
      return null;
    }
    int slots = (int) span + 1;
    heap.charge(4L * slots + 4L);
    if (firstMatchOnly && keys.length == 1) {
      // A semi or anti join asks only whether a value has a row: any one of them will do.
      return new JoinTable(columns, raw, keys, null, null, null, null, null, null, 0, k,
          rowPerValue(new int[slots + 2], values, min, n, unmatchable), null, null, min, heap);
    }
    // Rows per value, then, as running sums, where each value's rows end.
    int[] start = new int[slots + 2];
    int linked = 0;
    for (int r = 0; r < n; r++) {
      if (unmatchable == null || !unmatchable[r]) {
        start[(int) (values[r] - min)]++;
        linked++;
      }
    }
    int distinct = 0;
    for (int v = 0, sum = 0; v < slots; v++) {
      distinct += start[v] > 0 ? 1 : 0;
      sum += start[v];
      start[v] = sum;
    }
    start[slots] = linked;
    start[slots + 1] = linked;
    if (keys.length > 1 && linked > DIRECT_MAX_SHARING * distinct) {
      // The charge stays until the table closes: the budget has no partial release.
      return null;
    }
    if (linked == distinct) {
      // Unique values: the slot holds the row itself (in the array the counts were in).
      return new JoinTable(columns, raw, keys, null, null, null, null, null, null, 0, k,
          rowPerValue(start, values, min, n, unmatchable), null, null, min, heap);
    }
    // Filled from the last row back, so each value's rows end up ascending and start[v] ends at
    // the first of them.
    int[] rows = new int[linked];
    for (int r = n - 1; r >= 0; r--) {
      if (unmatchable == null || !unmatchable[r]) {
        rows[--start[(int) (values[r] - min)]] = r;
      }
    }
    return new JoinTable(columns, raw, keys, null, null, null, null, null, null, 0, k, null, start, rows,
        min, heap);
  }

  /** Fills {@code slots} with a row per value ({@code min + v} at {@code v}, -1 for none). */
  private static int[] rowPerValue(int[] slots, long[] values, long min, int n, boolean[] unmatchable) {
    Arrays.fill(slots, -1);
    for (int r = 0; r < n; r++) {
      if (unmatchable == null || !unmatchable[r]) {
        slots[(int) (values[r] - min)] = r;
      }
    }
    return slots;
  }

  /**
   * Per build row, whether a key that is not null-safe is NULL (the row can match nothing), or
   * null when no row has one; read once, where a check per row and key costs a call per pass.
   */
  private static boolean[] unmatchable(Col[] keys, boolean[] nullSafe, int n) {
    boolean[] out = null;
    for (int k = 0; k < keys.length; k++) {
      if (nullSafe[k] || keys[k].noNulls()) {
        continue;
      }
      for (int r = 0; r < n; r++) {
        if (keys[k].isNull(r)) {
          out = out == null ? new boolean[n] : out;
          out[r] = true;
        }
      }
    }
    return out;
  }

  static boolean hasNullKey(Col[] keys, boolean[] nullSafe, int row) {
    for (int k = 0; k < keys.length; k++) {
      if (!nullSafe[k] && keys[k].isNull(row)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A mark per build row, charged to this table's budget like the table itself (a RIGHT_SEMI or
   * RIGHT_ANTI probe marks the rows it matches, a FULL probe those it joined).
   *
   * @throws org.apache.arrow.memory.OutOfMemoryException if the marks do not fit the budget
   */
  boolean[] rowMarks() {
    int rows = keys.length > 0 ? keys[0].size : hashes.length;
    heap.charge(rows);
    return new boolean[rows];
  }

  /** Returns the table's heap to the budget and closes its struct and list vectors. */
  @Override
  public void close() {
    try {
      heap.close();
    } finally {
      for (FieldVector v : nested) {
        if (v != null) {
          v.close();
        }
      }
    }
  }

  /**
   * The rows of one morsel (or of a whole serial build): columns and keys per batch, and the
   * struct and list columns as vectors it owns until {@link #close()} or {@link #takeNested}.
   */
  private static final class Part implements AutoCloseable {
    private final List<Kernel> keyKernels;
    private final boolean keepColumns;
    private final HeapBudget heap;
    final List<List<Col>> columns = new ArrayList<>();
    /** Per column: its parts as UTF-8 bytes, or null when the column is read into a Col. */
    final List<List<Utf8Column>> strings = new ArrayList<>();
    /** Per column: its parts as fixed-width bytes, or null when the column is read otherwise. */
    final List<List<FixedColumn>> fixed = new ArrayList<>();
    /** Per column: the Arrow type of the join's output, which bytes kept must have. */
    private final List<ArrowType> outputTypes;
    final List<List<Col>> keys = new ArrayList<>();
    /** Per column: its rows so far when it is a struct or list, else null. */
    final FieldVector[] nested;
    int rows;
    long bytes;

    Part(JoinSpec spec, HeapBudget heap, BufferAllocator allocator) {
      // Compiled per part: a part is filled by one thread, and kernels may keep scratch state.
      this.keyKernels = spec.buildKeys().stream().map(Kernel::compile).toList();
      this.keepColumns = spec.keepsBuildColumns();
      this.heap = heap;
      List<Field> fields = spec.combined().getFields();
      this.outputTypes = fields.subList(spec.probeTypes().size(), fields.size()).stream()
          .map(Field::getType).toList();
      List<Field> buildFields = fields.subList(spec.probeTypes().size(), fields.size());
      this.nested = new FieldVector[keepColumns ? spec.buildTypes().size() : 0];
      for (int c = 0; keepColumns && c < spec.buildTypes().size(); c++) {
        SqlType type = spec.buildTypes().get(c);
        boolean utf8 = type != null && type.kind() == SqlType.Kind.UTF8;
        columns.add(new ArrayList<>());
        strings.add(utf8 ? new ArrayList<>() : null);
        fixed.add(utf8 || type == null ? null : new ArrayList<>());
        if (type == null) {
          try {
            nested[c] = buildFields.get(c).createVector(allocator);
            nested[c].allocateNew();
          } catch (RuntimeException | Error e) {
            close();
            throw e;
          }
        }
      }
      for (Expr ignored : spec.buildKeys()) {
        keys.add(new ArrayList<>());
      }
    }

    void add(Batch batch) {
      int n = batch.count();
      if (n == 0) {
        // Adds nothing; its vectors (an empty scan's) need not have the columns' types.
        return;
      }
      long added = 4L * n;
      for (int c = 0; c < columns.size(); c++) {
        FieldVector vector = batch.root().getVector(c);
        if (nested[c] != null) {
          // A struct or list: its rows copied value by value (Arrow buffers, not heap).
          for (int i = 0; i < n; i++) {
            nested[c].copyFromSafe(batch.row(i), rows + i, vector);
          }
          nested[c].setValueCount(rows + n);
        } else if (strings.get(c) != null && vector instanceof VarCharVector utf8) {
          Utf8Column col = Utf8Column.read(utf8, batch);
          added += col.heapBytes();
          strings.get(c).add(col);
        } else if (fixed.get(c) != null && FixedColumn.fits(vector)
            && vector.getField().getType().equals(outputTypes.get(c))) {
          FixedColumn col = FixedColumn.read(vector, batch);
          added += col.heapBytes();
          fixed.get(c).add(col);
        } else {
          // Not the vector type bytes are kept for after all: keep the whole column as values.
          if ((strings.get(c) != null && !strings.get(c).isEmpty())
              || (fixed.get(c) != null && !fixed.get(c).isEmpty())) {
            throw new IllegalStateException("build column " + c + " changed its vector type");
          }
          strings.set(c, null);
          fixed.set(c, null);
          Col col = Vectors.read(vector, batch);
          added += HeapBudget.bytes(col);
          columns.get(c).add(col);
        }
      }
      for (int k = 0; k < keyKernels.size(); k++) {
        Col key = keyKernels.get(k).eval(batch);
        added += HeapBudget.bytes(key);
        keys.get(k).add(key);
      }
      heap.charge(added);
      rows += n;
      bytes += added;
    }

    /** Nested column {@code c}'s vector, handed over to the caller (transfers ownership). */
    FieldVector takeNested(int c) {
      FieldVector v = nested[c];
      nested[c] = null;
      v.setValueCount(rows);
      return v;
    }

    @Override
    public void close() {
      for (int c = 0; c < nested.length; c++) {
        if (nested[c] != null) {
          nested[c].close();
          nested[c] = null;
        }
      }
    }
  }
}
