package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.Cols;
import dev.lake.exec.HeapBudget;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import dev.lake.exec.expr.Expr;
import dev.lake.exec.expr.Kernel;
import dev.lake.exec.fn.GroupState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Hash aggregation: drains its input, assigning each row a dense group id by its key values
 * (NULL is a key value like any other, so all NULL keys form one group), updates one
 * {@link Accumulator} per aggregate a batch at a time (COUNT, SUM and AVG through
 * {@link SharedAggregates}, which update their common counts and sums once), then emits keys
 * followed by aggregate values in batches of {@value #BATCH_ROWS} rows. Without keys there is
 * exactly one group, so a global aggregate over no rows still returns one row.
 */
public final class HashAggregateOperator implements Operator {
  static final int BATCH_ROWS = 64 * 1024;

  private final Operator input;
  private final Schema schema;
  private final List<Expr> keyExprs;
  private final List<SqlType> keyTypes;
  private final List<Expr.Agg> aggs;
  /** The distinct aggregate arguments, each evaluated once a batch; -1 in argSlot for count(*). */
  private final List<Kernel> aggArgs;
  private final List<SqlType> argTypes;
  /**
   * For each distinct argument that is a bare column, its index in the input batch, else -1: such
   * arguments are read into arrays kept from batch to batch ({@link Vectors#readReusing}), which
   * the accumulators are done with before the next batch.
   */
  private final int[] argColumns;
  private final int[] argSlot;
  /** For a SUM or AVG of a product, the slot of its second factor ({@link #argSlot} has the first); else -1. */
  private final int[] factorSlot;
  /** For a registered aggregate, the slots of its inputs (arguments, then ORDER BY keys); else null. */
  private final int[][] inputSlots;
  /** For an aggregate with {@code FILTER (WHERE ...)}, the slot of its condition; else -1. */
  private final int[] filterSlot;
  /** Whether every argument can be computed for any row without failing (see {@link #total}). */
  private final boolean argsTotal;
  private final BufferAllocator allocator;
  private final HeapBudget heap;
  private final PartialStates partialStates;
  private VectorSchemaRoot output;
  private int emitted;

  /** @param schema the output: one field per key, then one per aggregate */
  public HashAggregateOperator(
      Operator input, Schema schema, List<Expr> keys, List<Expr.Agg> aggs, BufferAllocator allocator) {
    this(input, schema, keys, aggs, allocator, null);
  }

  /**
   * An aggregation that is one phase of a parallel one: its registry aggregates of phase
   * PARTIAL register their states with {@code partialStates} and emit handles, those of phase
   * FINAL merge the states their input handles name (see {@link Expr.Registered}).
   */
  public HashAggregateOperator(Operator input, Schema schema, List<Expr> keys, List<Expr.Agg> aggs,
      BufferAllocator allocator, PartialStates partialStates) {
    this.partialStates = partialStates;
    this.input = input;
    this.schema = schema;
    this.keyExprs = List.copyOf(keys);
    this.keyTypes = keys.stream().map(Expr::type).toList();
    this.aggs = List.copyOf(aggs);
    this.argSlot = new int[aggs.size()];
    this.factorSlot = new int[aggs.size()];
    this.inputSlots = new int[aggs.size()][];
    this.filterSlot = new int[aggs.size()];
    List<Expr> distinct = new ArrayList<>();
    for (int a = 0; a < aggs.size(); a++) {
      Expr.Agg agg = aggs.get(a);
      factorSlot[a] = -1;
      filterSlot[a] = agg.filter() == null ? -1 : slotOf(agg.filter(), distinct);
      if (agg.registered() != null) {
        argSlot[a] = -1;
        inputSlots[a] = agg.registered().inputs().stream().mapToInt(e -> slotOf(e, distinct)).toArray();
      } else if (agg.arg() == null) {
        argSlot[a] = -1;
      } else if (SharedAggregates.sumsProduct(agg)) {
        // The sum multiplies as it adds: the product is never stored.
        List<Expr> factors = ((Expr.Call) agg.arg()).args();
        argSlot[a] = slotOf(factors.get(0), distinct);
        factorSlot[a] = slotOf(factors.get(1), distinct);
      } else {
        argSlot[a] = slotOf(agg.arg(), distinct);
      }
    }
    // The accumulators are done with a batch's arguments before the next is evaluated.
    this.aggArgs = Kernel.compileShared(distinct, true);
    this.argTypes = distinct.stream().map(Expr::type).toList();
    this.argColumns = distinct.stream().mapToInt(e -> e instanceof Expr.Column c ? c.index() : -1).toArray();
    this.argsTotal = distinct.stream().allMatch(HashAggregateOperator::total);
    this.allocator = allocator;
    this.heap = new HeapBudget(allocator, "hash aggregate");
  }

  private static int slotOf(Expr arg, List<Expr> distinct) {
    int slot = distinct.indexOf(arg);
    if (slot < 0) {
      slot = distinct.size();
      distinct.add(arg);
    }
    return slot;
  }

  /**
   * Whether {@code e} never fails, whatever row it is computed for: columns, constants and
   * floating-point {@code + - *} of them. Such arguments may be computed for rows the filter
   * dropped; anything that may fail (a division, integer overflow, a cast) must see only kept rows.
   */
  private static boolean total(Expr e) {
    return switch (e) {
      case Expr.Column c -> true;
      case Expr.Literal l -> true;
      case Expr.Call c -> c.type().isFloat()
          && (c.op() == Expr.Op.ADD || c.op() == Expr.Op.SUB || c.op() == Expr.Op.MUL || c.op() == Expr.Op.NEG)
          && c.args().stream().allMatch(HashAggregateOperator::total);
      default -> false;
    };
  }

  /** About how many heap bytes one group holds: its keys, hash table slot and accumulators. */
  private long bytesPerGroup() {
    long bytes = 16;
    for (SqlType t : keyTypes) {
      bytes += t.isLongBacked() || t.isFloat() || t.kind() == SqlType.Kind.BOOL ? 16 : 64;
    }
    for (Expr.Agg agg : aggs) {
      bytes += agg.distinct() ? 64 : 16;
    }
    return bytes;
  }

  /** Key identity: -0.0 equals 0.0 and decimals compare by value, as SQL equality does. */
  static Object normaliseKey(Object v) {
    return GroupState.sqlIdentity(v);
  }

  @Override
  public Batch next() {
    if (output == null) {
      aggregate();
    }
    int total = output.getRowCount();
    if (emitted >= total) {
      return null;
    }
    int count = Math.min(BATCH_ROWS, total - emitted);
    int[] selection = new int[count];
    for (int i = 0; i < count; i++) {
      selection[i] = emitted + i;
    }
    emitted += count;
    return new Batch(output, selection, count);
  }

  private void aggregate() {
    SharedAggregates shared = new SharedAggregates();
    List<Accumulator> accumulators = new ArrayList<>();
    // A registered aggregate has a state of its function's and no accumulator (null), a built-in one the reverse.
    List<GroupState> states = new ArrayList<>();
    for (int a = 0; a < aggs.size(); a++) {
      Expr.Agg agg = aggs.get(a);
      if (agg.registered() != null) {
        accumulators.add(null);
        states.add(agg.registered().spec().function().newState(agg.registered().spec()));
        continue;
      }
      Accumulator reader = shared.accumulator(agg, argSlot[a], factorSlot[a]);
      accumulators.add(reader != null ? reader : Accumulator.create(agg));
      states.add(null);
    }
    long stateBytes = 0;
    // Built-in aggregates without FILTER (TPC-H's) skip the bookkeeping of both.
    boolean anyState = states.stream().anyMatch(java.util.Objects::nonNull);
    boolean anyFilter = Arrays.stream(filterSlot).anyMatch(f -> f >= 0);
    FilteredRows filtered = new FilteredRows(aggArgs.size());
    boolean allShared = shared.readers() == aggs.size();
    GroupKeys groupKeys = new GroupKeys(keyExprs);
    long perGroup = bytesPerGroup();
    int charged = 0;
    int[] groups = new int[0];
    int[] rowGroups = new int[0];
    Col[] args = new Col[aggArgs.size()];
    Col[] scratch = new Col[aggArgs.size()];
    Batch batch;
    while ((batch = input.next()) != null) {
      int n = batch.count();
      if (groups.length < n) {
        groups = new int[n];
      }
      groupKeys.assign(batch, groups);
      int groupCount = groupKeys.groupCount();
      if (groupCount > charged) {
        heap.charge((groupCount - charged) * perGroup);
        charged = groupCount;
      }
      Batch evaluated = batch;
      int[] byRow = groups;
      int rows = n;
      int physical = batch.root().getRowCount();
      if (allShared && argsTotal && batch.selection() != null && n >= physical - physical / 8
          && shared.skipsUngrouped(groupCount)) {
        // Nearly every row kept: computing the arguments over all rows reads whole buffers
        // instead of gathering the kept ones, and the dropped rows go to no group (-1).
        if (rowGroups.length < physical) {
          rowGroups = new int[physical];
        }
        Arrays.fill(rowGroups, 0, physical, -1);
        int[] sel = batch.selection();
        for (int i = 0; i < n; i++) {
          rowGroups[sel[i]] = groups[i];
        }
        evaluated = Batch.dense(batch.root());
        byRow = rowGroups;
        rows = physical;
      }
      for (int j = 0; j < args.length; j++) {
        // Only arrays this loop allocated are written again: a kernel's result may be shared.
        Col read = argColumns[j] < 0 ? null
            : Vectors.readReusing(evaluated.root().getVector(argColumns[j]), evaluated, scratch[j]);
        if (read != null) {
          scratch[j] = read;
        }
        args[j] = read != null ? read : aggArgs.get(j).eval(evaluated);
      }
      shared.add(byRow, rows, args, groupCount);
      if (anyFilter) {
        filtered.reset();
      }
      for (int a = 0; a < accumulators.size(); a++) {
        int[] g = byRow;
        int count = rows;
        int f = filterSlot[a];
        if (f >= 0) {
          g = filtered.groups(f, (Col.Bools) args[f], byRow, rows);
          count = filtered.count(f);
        }
        if (states.get(a) != null && agg(a).phase() == Expr.Phase.FINAL) {
          mergeHandles(states.get(a), (Col.Longs) args[inputSlots[a][0]], g, count, groupCount);
          continue;
        }
        if (states.get(a) != null) {
          Col[] inputs = new Col[inputSlots[a].length];
          for (int j = 0; j < inputs.length; j++) {
            int slot = inputSlots[a][j];
            inputs[j] = f < 0 ? args[slot] : filtered.column(f, slot, args[slot], argTypes.get(slot));
          }
          states.get(a).add(g, count, inputs, groupCount);
          continue;
        }
        Col input = argSlot[a] < 0 ? null : args[argSlot[a]];
        if (f >= 0 && input != null) {
          input = filtered.column(f, argSlot[a], input, argTypes.get(argSlot[a]));
        }
        accumulators.get(a).add(g, count, input, groupCount);
      }
      if (anyState) {
        long nowBytes = 0;
        for (GroupState state : states) {
          nowBytes += state == null ? 0 : state.heapBytes();
        }
        heap.charge(nowBytes - stateBytes);
        stateBytes = Math.max(stateBytes, nowBytes);
      }
    }
    int groupCount = groupKeys.groupCount();
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (int k = 0; k < keyExprs.size(); k++) {
        FieldVector v = schema.getFields().get(k).createVector(allocator);
        vectors.add(v);
        Vectors.write(Vectors.fromObjects(keyTypes.get(k), groupKeys.values(k)), v);
      }
      for (int a = 0; a < accumulators.size(); a++) {
        FieldVector v = schema.getFields().get(keyExprs.size() + a).createVector(allocator);
        vectors.add(v);
        if (states.get(a) != null && agg(a).phase() == Expr.Phase.PARTIAL) {
          int id = partialStates.register(states.get(a));
          Col.Longs handles = new Col.Longs(groupCount);
          for (int g = 0; g < groupCount; g++) {
            handles.values[g] = PartialStates.handle(id, g);
          }
          Vectors.write(handles, v);
        } else if (states.get(a) != null) {
          states.get(a).write(groupCount, v);
        } else {
          Vectors.write(accumulators.get(a).result(groupCount), v);
        }
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    output = new VectorSchemaRoot(schema.getFields(), vectors, groupCount);
    // The groups now live in the output's Arrow buffers; the heap state is garbage.
    heap.close();
  }

  private Expr.Registered agg(int a) {
    return aggs.get(a).registered();
  }

  /**
   * Merges into {@code state} the partial states' groups that {@code handles} name: row {@code i}'s
   * partial group joins group {@code groups[i]}. A batch's handles come from one partial
   * aggregate (one id) in the common case, so each id is merged once a batch.
   */
  private void mergeHandles(GroupState state, Col.Longs handles, int[] groups, int count, int groupCount) {
    java.util.Map<Integer, int[]> into = new java.util.LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      int id = (int) (handles.values[i] >>> 32);
      int g = (int) handles.values[i];
      int[] map = into.get(id);
      if (map == null || map.length <= g) {
        int[] grown = new int[Math.max(g + 1, map == null ? 0 : map.length * 2)];
        Arrays.fill(grown, -1);
        if (map != null) {
          System.arraycopy(map, 0, grown, 0, map.length);
        }
        map = grown;
        into.put(id, map);
      }
      map[g] = groups[i];
    }
    for (var e : into.entrySet()) {
      state.merge(partialStates.get(e.getKey()), e.getValue(), groupCount);
    }
  }

  /**
   * The rows of one batch that pass each FILTER condition (by the condition's slot), and the
   * arguments gathered to them, each computed once a batch however many aggregates share them.
   */
  private static final class FilteredRows {
    private final int[][] rows;
    private final int[][] groups;
    private final int[] counts;
    private final java.util.Map<Long, Col> columns = new java.util.HashMap<>();

    FilteredRows(int slots) {
      rows = new int[slots][];
      groups = new int[slots][];
      counts = new int[slots];
    }

    void reset() {
      java.util.Arrays.fill(rows, null);
      columns.clear();
    }

    /** The group of each row where {@code condition} is TRUE, in row order. */
    int[] groups(int slot, Col.Bools condition, int[] byRow, int n) {
      if (rows[slot] == null) {
        int[] kept = new int[n];
        int[] keptGroups = new int[n];
        int count = 0;
        for (int i = 0; i < n; i++) {
          if (condition.isTrue(i) && byRow[i] >= 0) {
            kept[count] = i;
            keptGroups[count++] = byRow[i];
          }
        }
        rows[slot] = kept;
        groups[slot] = keptGroups;
        counts[slot] = count;
      }
      return groups[slot];
    }

    int count(int slot) {
      return counts[slot];
    }

    /** {@code values} (argument slot {@code arg}) at the rows condition {@code slot} keeps. */
    Col column(int slot, int arg, Col values, SqlType type) {
      return columns.computeIfAbsent(((long) slot << 32) | arg,
          key -> Cols.gather(values, type, rows[slot], counts[slot]));
    }
  }

  @Override
  public void close() {
    try {
      if (output != null) {
        output.close();
      }
    } finally {
      try {
        input.close();
      } finally {
        heap.close();
      }
    }
  }
}
