package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.Cols;
import dev.lake.exec.QueryControl;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import dev.lake.exec.expr.Kernel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Hash join probe: streams the probe input through a {@link JoinTable} of the build input, one
 * output batch per probe batch, or several when its keys match more than {@value #MAX_PAIRS}
 * build rows. The table is either built by this operator on its first batch
 * (and released when it closes) or shared: built once per execution and probed by one copy of
 * this operator per morsel, on several threads (see {@link Morsels}).
 *
 * <p>Output rows are probe columns then build columns (INNER, LEFT), or probe columns only
 * (SEMI, ANTI), or build columns only (RIGHT_SEMI, RIGHT_ANTI). A NULL key matches nothing unless
 * its key is null-safe ({@code IS NOT DISTINCT FROM}). The residual predicate, over
 * probe-then-build columns, decides among key matches: a LEFT row without a passing match gets
 * NULL build columns, a SEMI row is kept when one match passes, an ANTI row when none does. With
 * no keys every pair is a candidate (cross join).
 *
 * <p>FULL is LEFT plus, once the probe input ends, the build rows no probe row joined (by key
 * and residual), with NULL probe columns; like RIGHT_SEMI and RIGHT_ANTI it is probed by one
 * operator. A build row with a NULL key is among them: it matches nothing.
 *
 * <p>RIGHT_SEMI and RIGHT_ANTI keep the build rows that some probe row matches, or none does: a
 * semi or anti join whose kept side is far smaller than the other builds the kept side and
 * streams the large one past it (TPC-H Q21's EXISTS and NOT EXISTS over lineitem), instead of
 * building a table of the large side. The probe marks the build rows it matches; once the probe
 * input ends, the kept build rows follow in build order. Such a join is probed by one operator,
 * never by copies per morsel, since each copy would see only part of the probe rows.
 */
public final class HashJoinOperator implements Operator {

  public enum Type {
    INNER, LEFT, SEMI, ANTI, RIGHT_SEMI, RIGHT_ANTI, FULL;

    /** Whether the output is the build rows, after the whole probe input (RIGHT_SEMI, RIGHT_ANTI). */
    public boolean keepsBuildRows() {
      return this == RIGHT_SEMI || this == RIGHT_ANTI;
    }
  }

  /** The most build rows in one output batch of a RIGHT_SEMI or RIGHT_ANTI join. */
  static final int BUILD_ROWS_PER_BATCH = 1 << 16;

  /** About the most key matches joined into one output batch. */
  static final int MAX_PAIRS = 1 << 17;

  private final Operator probe;
  private final Supplier<JoinTable> build;
  private final boolean ownsTable;
  private final Type type;
  private final List<Kernel> probeKeys;
  private final boolean[] nullSafe;
  private final Kernel residual;
  private final boolean firstMatchOnly;
  private final List<SqlType> probeTypes;
  private final List<SqlType> buildTypes;
  private final Schema combined;
  private final boolean keepsBuildRows;
  /** FULL: whether rows joined are marked, and the unmarked build rows follow the probe. */
  private final boolean full;
  private final BufferAllocator allocator;
  private final QueryControl control;

  private JoinTable table;
  private Col[] buildCols;
  private Col[] buildKeyCols;
  private int[] buildHashes;
  private int[] head;
  private int[] chain;
  private int[] bucketStart;
  private long[] bucketKeys;
  private int[] bucketRows;
  private int mask;
  private long[] hashFilter;
  private int filterShift;
  private int directKey;
  private int[] directFirst;
  private int[] directStart;
  private int[] directRows;
  private long directMin;
  private VectorSchemaRoot output;
  /** The probe batch being joined (several output batches when its keys match many rows). */
  private Batch current;
  private Col[] currentKeys;
  private int[] currentHashes;
  private boolean[] currentMatched;
  private Col[] currentProbeCols;
  private long[][] probeLongKeys;
  private long[][] buildLongKeys;
  private int cursor;
  /**
   * The rows of the current batch that pass the table's {@link JoinTable#hashFilter}, ascending
   * (the others match nothing), or null when every row is probed; and the next one to probe.
   */
  private int[] candidates;
  private int candidateCount;
  private int candidateCursor;
  private int[] candidateScratch;
  /** Cleared once a batch had most rows pass the filter: then it only adds work. */
  private boolean filtering = true;
  /**
   * The matching pairs of the rows being joined: probe rows of the current batch and build rows.
   * Reused across batches; only the first {@link #pairs} entries are meaningful.
   */
  private int[] pairProbe;
  private int[] pairBuild;
  private int pairs;
  private boolean probeEnded;
  /** RIGHT_SEMI, RIGHT_ANTI: per build row, whether a probe row matched it. */
  private boolean[] matchedBuild;
  /** RIGHT_SEMI, RIGHT_ANTI: the next build row to consider for output once the probe has ended. */
  private int emitted;
  /** Per probe row, its slot in a direct table and the entry it read there. */
  private int[] slotScratch;
  private int[] entryScratch;

  /**
   * @param build gives the table on the first batch: builds it, or returns a shared one
   * @param ownsTable whether closing this operator releases the table ({@code build} made it for
   *     this operator alone)
   */
  public HashJoinOperator(Operator probe, Supplier<JoinTable> build, boolean ownsTable, JoinSpec spec,
      BufferAllocator allocator) {
    this.probe = probe;
    this.build = build;
    this.ownsTable = ownsTable;
    this.type = spec.type();
    // Compiled per operator: copies of a probe run on several threads.
    this.probeKeys = spec.probeKeys().stream().map(Kernel::compile).toList();
    this.nullSafe = spec.nullSafe();
    this.residual = spec.residual() == null ? null : Kernel.compile(spec.residual());
    this.firstMatchOnly = spec.firstMatchOnly();
    this.probeTypes = spec.probeTypes();
    this.buildTypes = spec.buildTypes();
    this.combined = spec.combined();
    this.keepsBuildRows = type.keepsBuildRows();
    this.full = type == Type.FULL;
    this.allocator = allocator;
    this.control = QueryControl.of(allocator);
  }

  @Override
  public Batch next() {
    if (table == null) {
      table = build.get();
      buildCols = table.columns;
      buildKeyCols = table.keys;
      buildHashes = table.hashes;
      head = table.head;
      chain = table.chain;
      bucketStart = table.bucketStart;
      bucketKeys = table.bucketKeys;
      bucketRows = table.bucketRows;
      mask = table.mask;
      hashFilter = table.hashFilter;
      filterShift = table.filterShift;
      directKey = table.directKey;
      directFirst = table.directFirst;
      directStart = table.directStart;
      directRows = table.directRows;
      directMin = table.directMin;
      if (keepsBuildRows || full) {
        matchedBuild = table.rowMarks();
      }
    }
    while (true) {
      closeOutput();
      // A probe batch can take long to join (many matches per key): stop between its outputs.
      control.check();
      if (current == null) {
        Batch batch = probeEnded ? null : probe.next();
        if (batch == null) {
          probeEnded = true;
          return keepsBuildRows ? nextBuildRows() : full ? unmatchedBuildRows() : null;
        }
        start(batch);
      }
      Batch out = probeRows();
      if (cursor >= current.count()) {
        // The batch stays readable until the next probe.next(), so out may still point into it.
        current = null;
      }
      if (out != null && out.count() > 0) {
        return out;
      }
    }
  }

  /** Evaluates and hashes the keys of a new probe batch. */
  private void start(Batch batch) {
    int n = batch.count();
    Col[] keys = new Col[probeKeys.size()];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = probeKeys.get(k).eval(batch);
    }
    // A direct table is indexed by a key's value: no hashes to compute.
    int[] hashes = directFirst != null || directStart != null ? null : new int[n];
    for (int k = 0; hashes != null && k < keys.length; k++) {
      Cols.hashInto(keys[k], hashes, n);
    }
    // Several integer keys: compare the primitive values (NULL keys never reach the comparison).
    boolean longs = keys.length > 1;
    for (int k = 0; k < keys.length; k++) {
      longs &= keys[k] instanceof Col.Longs && buildKeyCols[k] instanceof Col.Longs && !nullSafe[k];
    }
    probeLongKeys = longs ? new long[keys.length][] : null;
    buildLongKeys = longs ? new long[keys.length][] : null;
    for (int k = 0; longs && k < keys.length; k++) {
      probeLongKeys[k] = ((Col.Longs) keys[k]).values;
      buildLongKeys[k] = ((Col.Longs) buildKeyCols[k]).values;
    }
    candidates = null;
    if (hashes != null && hashFilter != null && filtering) {
      filterRows(hashes, n);
    }
    current = batch;
    currentKeys = keys;
    currentHashes = hashes;
    currentMatched = new boolean[n];
    currentProbeCols = new Col[probeTypes.size()];
    cursor = 0;
  }

  /**
   * Lists the rows whose hash bit is set in the table's filter, without a branch on the bits;
   * stops filtering later batches once most rows pass.
   */
  private void filterRows(int[] hashes, int n) {
    if (candidateScratch == null || candidateScratch.length < n) {
      candidateScratch = new int[n];
    }
    int[] out = candidateScratch;
    long[] filter = hashFilter;
    int shift = filterShift;
    int count = 0;
    for (int i = 0; i < n; i++) {
      int bit = hashes[i] >>> shift;
      out[count] = i;
      count += (int) (filter[bit >>> 6] >>> bit) & 1;
    }
    candidates = out;
    candidateCount = count;
    candidateCursor = 0;
    filtering = 2 * count < n;
  }

  private boolean hasNullKey(Col[] keys, int row) {
    return JoinTable.hasNullKey(keys, nullSafe, row);
  }

  /**
   * Joins the next rows of the current probe batch: as many whole rows as fit in about
   * {@value #MAX_PAIRS} matching pairs, so that a key matching many build rows yields several
   * bounded batches instead of one huge one (and a stopped query stops between them).
   */
  private Batch probeRows() {
    Batch batch = current;
    int n = batch.count();
    int from = cursor;
    Col[] keys = currentKeys;
    int[] hashes = currentHashes;
    boolean firstMatchOnly = this.firstMatchOnly;
    boolean[] matched = currentMatched;
    if (pairProbe == null) {
      pairProbe = new int[Math.max(16, Math.min(n - from, MAX_PAIRS))];
      pairBuild = new int[pairProbe.length];
    }
    pairs = 0;
    int i = from;
    if (directFirst != null || directStart != null) {
      i = probeDirect(keys, from, n, matched);
    }
    // Without a filter, every row from the cursor on; with one, only the rows that pass it.
    int[] rows = candidates;
    int k = rows == null ? i : candidateCursor;
    int end = rows == null ? n : candidateCount;
    // One BIGINT/INTEGER/DATE key: the table is laid out by bucket; compare primitive values.
    boolean oneLong = bucketStart != null;
    long[] probeLongs = oneLong ? ((Col.Longs) keys[0]).values : null;
    boolean[] probeNulls = oneLong ? ((Col.Longs) keys[0]).nulls : null;
    boolean probeNoNulls = oneLong && keys[0].noNulls();
    int[] starts = bucketStart;
    long[] candidates = bucketKeys;
    for (; oneLong && k < end && pairs < MAX_PAIRS; k++) {
      i = rows == null ? k : rows[k];
      if (!probeNoNulls && probeNulls[i]) {
        continue;
      }
      int b = hashes[i] & mask;
      long key = probeLongs[i];
      for (int j = starts[b], stop = starts[b + 1]; j < stop; j++) {
        // Build rows with a NULL key are not in the layout, so equal values are non-null matches.
        if (candidates[j] != key) {
          continue;
        }
        int r = bucketRows[j];
        if (firstMatchOnly) {
          matched[i] = true;
          break;
        }
        addPair(i, r);
      }
    }
    boolean chained = head != null;
    for (; chained && k < end && pairs < MAX_PAIRS; k++) {
      i = rows == null ? k : rows[k];
      if (hasNullKey(keys, i)) {
        continue;
      }
      int h = hashes[i];
      for (int r = head[h & mask]; r >= 0; r = chain[r]) {
        if (buildHashes[r] != h || !keysEqual(keys, i, r)) {
          continue;
        }
        if (firstMatchOnly) {
          matched[i] = true;
          break;
        }
        addPair(i, r);
      }
    }
    if (oneLong || chained) {
      // The rows before the next one to probe are done (those the filter skipped match nothing).
      i = rows == null ? k : k < end ? rows[k] : n;
      candidateCursor = k;
    }
    int to = i;
    cursor = to;
    if (keepsBuildRows) {
      markBuildRows(batch, currentProbeCols, pairProbe, pairBuild, pairs);
      return null;
    }
    int[] pp = pairProbe;
    int[] bp = pairBuild;
    int pairs = this.pairs;
    // Probe columns are read into Java arrays only when materialize cannot copy them directly.
    Col[] probeCols = currentProbeCols;
    int[] selection = null;
    if (residual != null && pairs > 0) {
      output = materialize(batch, probeCols, pp, bp, pairs);
      Col.Bools ok = (Col.Bools) residual.eval(Batch.dense(output));
      selection = new int[pairs];
      int kept = 0;
      for (int p = 0; p < pairs; p++) {
        if (ok.isTrue(p)) {
          selection[kept++] = p;
          matched[pp[p]] = true;
        }
      }
      if (type == Type.INNER) {
        return new Batch(output, kept == pairs ? null : selection, kept);
      }
      for (int p = 0; p < kept; p++) {
        pp[p] = pp[selection[p]];
        bp[p] = bp[selection[p]];
        if (full) {
          matchedBuild[bp[p]] = true;
        }
      }
      pairs = kept;
      closeOutput();
    } else if (type == Type.LEFT || full) {
      for (int p = 0; p < pairs; p++) {
        matched[pp[p]] = true;
        if (full) {
          matchedBuild[bp[p]] = true;
        }
      }
    }
    switch (type) {
      case INNER -> {
        if (directFirst != null && from == 0 && to == n && 2 * pairs >= batch.root().getRowCount()
            && probeTypesMatch(batch)) {
          return alongside(batch, pp, bp, pairs);
        }
        output = materialize(batch, probeCols, pp, bp, pairs);
        return Batch.dense(output);
      }
      case LEFT, FULL -> {
        int unmatched = 0;
        for (int row = from; row < to; row++) {
          if (!matched[row]) {
            unmatched++;
          }
        }
        if (pairs + unmatched > pp.length) {
          pp = Arrays.copyOf(pp, pairs + unmatched);
          bp = Arrays.copyOf(bp, pairs + unmatched);
        }
        for (int row = from; row < to; row++) {
          if (!matched[row]) {
            pp[pairs] = row;
            bp[pairs] = -1;
            pairs++;
          }
        }
        output = materialize(batch, probeCols, pp, bp, pairs);
        return Batch.dense(output);
      }
      default -> {
        boolean keep = type == Type.SEMI;
        int[] sel = new int[to - from];
        int count = 0;
        for (int row = from; row < to; row++) {
          if (matched[row] == keep) {
            sel[count++] = batch.row(row);
          }
        }
        return new Batch(batch.root(), sel, count);
      }
    }
  }

  /**
   * Probes a direct table with rows {@code from..} of the current batch until they end or about
   * {@value #MAX_PAIRS} pairs are found; returns the row after the last one probed. First every
   * row's slot is read, in a loop without branches, so that the processor keeps many of these
   * loads (cache misses on a large table) in flight at once; then the slots are matched.
   */
  private int probeDirect(Col[] keys, int from, int n, boolean[] matched) {
    Col.Longs index = (Col.Longs) keys[directKey];
    long[] probeLongs = index.values;
    boolean[] probeNulls = index.noNulls() ? null : index.nulls;
    int[] table = directFirst != null ? directFirst : directStart;
    int values = table.length - 2;
    long min = directMin;
    if (slotScratch == null || slotScratch.length < n) {
      slotScratch = new int[n];
      entryScratch = new int[n];
    }
    int[] slot = slotScratch;
    int[] entry = entryScratch;
    for (int i = from; i < n; i++) {
      long v = probeLongs[i] - min;
      // Unsigned: below min wraps to a huge value. NULL and out-of-range keys read the empty entry.
      boolean miss = Long.compareUnsigned(v, values) >= 0 || (probeNulls != null && probeNulls[i]);
      slot[i] = miss ? values : (int) v;
      entry[i] = table[slot[i]];
    }
    boolean more = keys.length > 1;
    int i = from;
    if (directFirst != null && !more && !keepsBuildRows) {
      return firstMatchOnly ? markDirect(entry, from, n, matched) : pairDirect(entry, from, n);
    }
    for (; i < n && pairs < MAX_PAIRS; i++) {
      if (directFirst != null) {
        int r = entry[i];
        if (r >= 0 && (!more || (!hasNullKey(keys, i) && keysEqual(keys, i, r)))) {
          if (firstMatchOnly) {
            matched[i] = true;
          } else {
            addPair(i, r);
          }
        }
        continue;
      }
      // The value's end is next to its start, which the first loop brought into the cache.
      int start = entry[i];
      int end = directStart[slot[i] + 1];
      if (firstMatchOnly && !more) {
        // Any row of the value matches: no need to read which.
        matched[i] = start < end;
        continue;
      }
      if (more && hasNullKey(keys, i)) {
        continue;
      }
      for (int j = start; j < end; j++) {
        int r = directRows[j];
        if (more && !keysEqual(keys, i, r)) {
          continue;
        }
        if (firstMatchOnly) {
          matched[i] = true;
          break;
        }
        addPair(i, r);
      }
    }
    return i;
  }

  /*
   * One key into a table of one row per value, the common foreign-key probe: each probe row has
   * at most one pair, so both loops write without a branch on whether the row matched. Probe
   * rows that mostly miss (a filtered dimension: TPC-H Q5's suppliers of one region) made a
   * branch per row mispredict about as often as rows matched.
   */

  /** SEMI, ANTI: whether each row from {@code from} has its value's row. Returns {@code n}. */
  private static int markDirect(int[] entry, int from, int n, boolean[] matched) {
    for (int i = from; i < n; i++) {
      matched[i] = entry[i] >= 0;
    }
    return n;
  }

  /** INNER, LEFT: the pairs of rows from {@code from}, until {@code n} or about {@value #MAX_PAIRS}. */
  private int pairDirect(int[] entry, int from, int n) {
    int end = (int) Math.min(n, from + (long) MAX_PAIRS - pairs);
    if (pairProbe.length < pairs + (end - from)) {
      pairProbe = Arrays.copyOf(pairProbe, pairs + (end - from));
      pairBuild = Arrays.copyOf(pairBuild, pairProbe.length);
    }
    int[] pp = pairProbe;
    int[] bp = pairBuild;
    int count = pairs;
    for (int i = from; i < end; i++) {
      int r = entry[i];
      pp[count] = i;
      bp[count] = r;
      count += ~r >>> 31;
    }
    pairs = count;
    return end;
  }

  /** Records a matching pair: probe row {@code i} of the current batch, build row {@code r}. */
  private void addPair(int i, int r) {
    if (keepsBuildRows && matchedBuild[r]) {
      // Already matched: another match cannot change whether the build row is kept.
      return;
    }
    if (pairs == pairProbe.length) {
      pairProbe = Arrays.copyOf(pairProbe, pairs * 2);
      pairBuild = Arrays.copyOf(pairBuild, pairs * 2);
    }
    pairProbe[pairs] = i;
    pairBuild[pairs] = r;
    pairs++;
  }

  /** Marks the build rows of the pairs whose residual passes (all of them without one). */
  private void markBuildRows(Batch batch, Col[] probeCols, int[] pp, int[] bp, int pairs) {
    if (residual == null) {
      for (int p = 0; p < pairs; p++) {
        matchedBuild[bp[p]] = true;
      }
      return;
    }
    if (pairs == 0) {
      return;
    }
    output = materialize(batch, probeCols, pp, bp, pairs);
    Col.Bools ok = (Col.Bools) residual.eval(Batch.dense(output));
    for (int p = 0; p < pairs; p++) {
      if (ok.isTrue(p)) {
        matchedBuild[bp[p]] = true;
      }
    }
    closeOutput();
  }

  /**
   * The next batch of kept build rows (matched for RIGHT_SEMI, unmatched for RIGHT_ANTI, in build
   * order), or null when all have been returned.
   */
  private Batch nextBuildRows() {
    boolean keep = type == Type.RIGHT_SEMI;
    int rows = matchedBuild.length;
    int[] selected = new int[Math.min(BUILD_ROWS_PER_BATCH, Math.max(1, rows - emitted))];
    int count = 0;
    while (emitted < rows && count < selected.length) {
      if (matchedBuild[emitted] == keep) {
        selected[count++] = emitted;
      }
      emitted++;
    }
    if (count == 0) {
      return null;
    }
    List<FieldVector> vectors = new ArrayList<>(buildTypes.size());
    try {
      addBuildColumns(vectors, selected, count);
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    List<Field> fields = combined.getFields().subList(probeTypes.size(), combined.getFields().size());
    output = new VectorSchemaRoot(fields, vectors, count);
    return Batch.dense(output);
  }

  /**
   * FULL: the next batch of build rows no probe row joined, in build order, with NULL probe
   * columns, or null when all have been returned.
   */
  private Batch unmatchedBuildRows() {
    int rows = matchedBuild.length;
    int[] selected = new int[Math.min(BUILD_ROWS_PER_BATCH, Math.max(1, rows - emitted))];
    int count = 0;
    while (emitted < rows && count < selected.length) {
      if (!matchedBuild[emitted]) {
        selected[count++] = emitted;
      }
      emitted++;
    }
    if (count == 0) {
      return null;
    }
    List<Field> fields = combined.getFields();
    List<FieldVector> vectors = new ArrayList<>(fields.size());
    try {
      for (int c = 0; c < probeTypes.size(); c++) {
        FieldVector v = fields.get(c).createVector(allocator);
        vectors.add(v);
        v.setInitialCapacity(count);
        v.allocateNew();
        for (int i = 0; i < count; i++) {
          setNull(v, i);
        }
        v.setValueCount(count);
      }
      addBuildColumns(vectors, selected, count);
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    output = new VectorSchemaRoot(fields, vectors, count);
    return Batch.dense(output);
  }

  private boolean keysEqual(Col[] keys, int i, int r) {
    if (probeLongKeys != null) {
      for (int k = 0; k < probeLongKeys.length; k++) {
        if (probeLongKeys[k][i] != buildLongKeys[k][r]) {
          return false;
        }
      }
      return true;
    }
    for (int k = 0; k < keys.length; k++) {
      if (!Cols.equal(keys[k], i, buildKeyCols[k], r)) {
        return false;
      }
    }
    return true;
  }

  private VectorSchemaRoot materialize(Batch batch, Col[] probeCols, int[] pp, int[] bp, int count) {
    List<Field> fields = combined.getFields();
    List<FieldVector> vectors = new ArrayList<>(fields.size());
    try {
      int[] rows = null;
      for (int c = 0; c < probeCols.length; c++) {
        FieldVector v = fields.get(c).createVector(allocator);
        vectors.add(v);
        FieldVector source = batch.root().getVector(c);
        if (probeTypes.get(c) == null) {
          // A struct or list column, passed through: copied value by value.
          v.setInitialCapacity(count);
          v.allocateNew();
          for (int p = 0; p < count; p++) {
            v.copyFromSafe(batch.row(pp[p]), p, source);
          }
          v.setValueCount(count);
          continue;
        }
        if (probeCols[c] == null) {
          if (rows == null) {
            rows = new int[count];
            for (int p = 0; p < count; p++) {
              rows[p] = batch.row(pp[p]);
            }
          }
          if (FixedColumn.gather(source, rows, count, v) || Vectors.gatherWithoutNulls(source, rows, count, v)) {
            continue;
          }
          probeCols[c] = Vectors.read(source, batch);
        }
        Vectors.write(Cols.gather(probeCols[c], probeTypes.get(c), pp, count), v);
      }
      addBuildColumns(vectors, bp, count);
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(fields, vectors, count);
  }

  private static void setNull(FieldVector v, int i) {
    switch (v) {
      case BaseFixedWidthVector fixed -> fixed.setNull(i);
      case org.apache.arrow.vector.BaseVariableWidthVector variable -> variable.setNull(i);
      case org.apache.arrow.vector.complex.StructVector struct -> struct.setNull(i);
      case org.apache.arrow.vector.complex.ListVector list -> list.setNull(i);
      case org.apache.arrow.vector.complex.LargeListVector list -> list.setNull(i);
      case org.apache.arrow.vector.complex.FixedSizeListVector list -> list.setNull(i);
      default -> throw new IllegalStateException("a NULL of type " + v.getField().getType() + " in a join's output");
    }
  }

  /** Appends the build columns at rows {@code bp[0..count)} (-1: NULL) to {@code vectors}. */
  private void addBuildColumns(List<FieldVector> vectors, int[] bp, int count) {
    List<Field> fields = combined.getFields();
    int probeColumns = probeTypes.size();
    for (int c = 0; c < buildCols.length; c++) {
      FieldVector v = fields.get(probeColumns + c).createVector(allocator);
      vectors.add(v);
      FieldVector nested = table.nested[c];
      if (nested != null) {
        // A struct or list column, passed through: copied value by value. Arrow copies through the
        // source vector's one cached reader (and its children's), whose position is shared state,
        // so the probes of one table on several threads take turns.
        v.setInitialCapacity(count);
        v.allocateNew();
        synchronized (nested) {
          for (int i = 0; i < count; i++) {
            if (bp[i] < 0) {
              setNull(v, i);
            } else {
              v.copyFromSafe(bp[i], i, nested);
            }
          }
        }
        v.setValueCount(count);
        continue;
      }
      Utf8Column bytes = table.strings[c];
      if (bytes != null && v instanceof VarCharVector utf8) {
        bytes.gather(bp, count, utf8);
        continue;
      }
      if (table.fixed[c] != null) {
        table.fixed[c].gather(bp, count, (BaseFixedWidthVector) v);
        continue;
      }
      Col values = bytes != null ? bytes.toCol() : buildCols[c];
      Vectors.write(Cols.gather(values, buildTypes.get(c), bp, count), v);
    }
  }

  /** Whether the probe batch's vectors have the types of the output's probe columns. */
  private boolean probeTypesMatch(Batch batch) {
    List<Field> fields = combined.getFields();
    for (int c = 0; c < probeTypes.size(); c++) {
      if (!batch.root().getVector(c).getField().getType().equals(fields.get(c).getType())) {
        return false;
      }
    }
    return true;
  }

  /**
   * The output of an INNER join in which each probe row matched at most one build row, and most
   * rows matched: built around the probe batch, whose vectors are taken over (a transfer, which
   * {@link Batch} allows a consumer) instead of copied, with the build columns written at the
   * matched rows' physical positions and the matched rows as the selection. A chain of joins
   * then copies each probe column once, not once per join.
   */
  private Batch alongside(Batch batch, int[] pp, int[] bp, int count) {
    List<Field> fields = combined.getFields();
    int physical = batch.root().getRowCount();
    int[] at = new int[physical];
    Arrays.fill(at, -1);
    int[] selection = new int[count];
    for (int p = 0; p < count; p++) {
      int row = batch.row(pp[p]);
      at[row] = bp[p];
      selection[p] = row;
    }
    List<FieldVector> vectors = new ArrayList<>(fields.size());
    try {
      for (int c = 0; c < probeTypes.size(); c++) {
        FieldVector v = fields.get(c).createVector(allocator);
        vectors.add(v);
        batch.root().getVector(c).makeTransferPair(v).transfer();
      }
      addBuildColumns(vectors, at, physical);
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    output = new VectorSchemaRoot(fields, vectors, physical);
    return new Batch(output, count == physical ? null : selection, count);
  }

  private void closeOutput() {
    if (output != null) {
      output.close();
      output = null;
    }
  }

  @Override
  public void close() {
    try {
      closeOutput();
    } finally {
      try {
        probe.close();
      } finally {
        if (ownsTable && table != null) {
          table.close();
        }
      }
    }
  }
}
