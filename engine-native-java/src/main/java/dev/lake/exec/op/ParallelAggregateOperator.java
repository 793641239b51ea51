package dev.lake.exec.op;

import dev.lake.engine.ScanUnit;
import dev.lake.exec.Batch;
import dev.lake.exec.Cols;
import dev.lake.exec.QueryControl;
import dev.lake.exec.Vectors;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Morsel-driven partial aggregation: {@code threads} workers ({@link MorselWorkers}) take the
 * morsels of a pipeline (scan, filters, projections, hash join probes; at most
 * {@value #MAX_PARTIALS} morsels of adjacent scan units) one at a time, run the
 * pipeline and a partial aggregate over each, and keep the partial results; the final aggregate
 * then merges them in morsel order, so the answer (floating-point sums included) does not depend
 * on which worker took which morsel. The pipeline's shared state (its join tables) is released as
 * soon as the partials are done.
 *
 * <p>When the partials hold many rows (keys of high cardinality, which partial aggregation
 * barely reduces), the final merge runs on the workers too: every partial row goes to one of
 * {@value #MERGE_PARTITIONS} partitions by the hash of its keys, and each partition is merged
 * on its own, its rows still in morsel order, so every group's value is the one the single
 * merge computes; the output lists the partitions in order, whatever the number of workers.
 *
 * <p>The workers live only while a stage runs, inside the first {@link #next()}: a failure,
 * cancellation or timeout stops all of them before it returns.
 */
public final class ParallelAggregateOperator implements Operator {
  /** Partial rows from which the final merge is partitioned across the workers. */
  static final int PARALLEL_MERGE_ROWS = 1 << 16;
  static final int MERGE_PARTITIONS = 16;
  /** Partial aggregates a stage makes at most, whatever the number of scan units. */
  static final int MAX_PARTIALS = 16;

  private final Supplier<Morsels> pipeline;
  private final UnaryOperator<Operator> partial;
  private final Function<Operator, Operator> merge;
  private final Schema partialSchema;
  private final int keyCount;
  private final Schema outputSchema;
  private final int threads;
  private final BufferAllocator allocator;
  private final AutoCloseable shared;
  private VectorSchemaRoot[] partials;
  private VectorSchemaRoot[] merged;
  private Operator finalOp;

  /**
   * @param pipeline starts the pipeline for this execution (builds its join tables)
   * @param partial wraps one copy of the pipeline into the partial aggregate
   * @param partialSchema the partial results: the {@code keyCount} group keys, then the partial
   *     aggregates
   * @param merge wraps a stream of partial results into the final aggregate, whose output is
   *     {@code outputSchema}
   */
  public ParallelAggregateOperator(Supplier<Morsels> pipeline, UnaryOperator<Operator> partial,
      Schema partialSchema, int keyCount, Function<Operator, Operator> merge, Schema outputSchema,
      int threads, BufferAllocator allocator) {
    this(pipeline, partial, partialSchema, keyCount, merge, outputSchema, threads, allocator, () -> {});
  }

  /** @param shared what the stages share for this execution (partial states), closed last */
  public ParallelAggregateOperator(Supplier<Morsels> pipeline, UnaryOperator<Operator> partial,
      Schema partialSchema, int keyCount, Function<Operator, Operator> merge, Schema outputSchema,
      int threads, BufferAllocator allocator, AutoCloseable shared) {
    this.shared = shared;
    this.pipeline = pipeline;
    this.partial = partial;
    this.partialSchema = partialSchema;
    this.keyCount = keyCount;
    this.outputSchema = outputSchema;
    this.merge = merge;
    this.threads = Math.max(1, threads);
    this.allocator = allocator;
  }

  @Override
  public Batch next() {
    if (finalOp == null) {
      runPartials();
      long rows = 0;
      for (VectorSchemaRoot root : partials) {
        rows += root.getRowCount();
      }
      if (threads > 1 && keyCount > 0 && rows >= PARALLEL_MERGE_ROWS) {
        mergePartitions();
        finalOp = new RootsOperator(merged, null);
      } else {
        finalOp = merge.apply(new RootsOperator(partials, null));
      }
    }
    return finalOp.next();
  }

  private void runPartials() {
    try (Morsels morsels = pipeline.get()) {
      List<List<ScanUnit>> groups = morselsOf(morsels.units());
      partials = new VectorSchemaRoot[groups.size()];
      MorselWorkers.run(groups.size(), threads, QueryControl.of(allocator), (m, workers) ->
          partials[m] = drain(morsels.open(groups.get(m)), partial, partialSchema, workers));
    }
  }

  /**
   * The scan units as at most {@value #MAX_PARTIALS} morsels of adjacent units. Every partial
   * costs a group table built from nothing and a merge of its rows: with a unit per morsel, a
   * grouping that partial aggregation barely reduces (TPC-H Q15: ten thousand suppliers over a
   * few thousand rows per unit) spent more on partials than one thread spends on the whole
   * aggregate. The grouping depends on the units only, never on the number of workers, so the
   * answer does not either.
   */
  static List<List<ScanUnit>> morselsOf(List<ScanUnit> units) {
    int per = Math.max(1, (units.size() + MAX_PARTIALS - 1) / MAX_PARTIALS);
    List<List<ScanUnit>> morsels = new ArrayList<>();
    for (int from = 0; from < units.size(); from += per) {
      morsels.add(List.copyOf(units.subList(from, Math.min(units.size(), from + per))));
    }
    return morsels;
  }

  /**
   * Merges the partials partition by partition on the workers: first each partial's rows are
   * split by the hash of their keys (one task per partial), then each partition is merged.
   */
  private void mergePartitions() {
    QueryControl control = QueryControl.of(allocator);
    int[][][] rowsOf = new int[partials.length][][];
    MorselWorkers.run(partials.length, threads, control,
        (m, workers) -> rowsOf[m] = partition(partials[m]));
    merged = new VectorSchemaRoot[MERGE_PARTITIONS];
    MorselWorkers.run(MERGE_PARTITIONS, threads, control, (p, workers) -> {
      int[][] selections = new int[partials.length][];
      for (int m = 0; m < partials.length; m++) {
        selections[m] = rowsOf[m][p];
      }
      merged[p] = drain(new RootsOperator(partials, selections), merge, outputSchema, workers);
    });
  }

  /** The rows of {@code root} in each partition, ascending. */
  private int[][] partition(VectorSchemaRoot root) {
    int n = root.getRowCount();
    int[] hashes = new int[n];
    Batch all = Batch.dense(root);
    for (int k = 0; k < keyCount; k++) {
      if (root.getVector(k) instanceof VarCharVector utf8) {
        hashUtf8Into(utf8, hashes, n);
      } else {
        Cols.hashInto(Vectors.read(root.getVector(k), all), hashes, n);
      }
    }
    int[] counts = new int[MERGE_PARTITIONS];
    for (int i = 0; i < n; i++) {
      counts[partitionOf(hashes[i])]++;
    }
    int[][] rows = new int[MERGE_PARTITIONS][];
    for (int p = 0; p < MERGE_PARTITIONS; p++) {
      rows[p] = new int[counts[p]];
      counts[p] = 0;
    }
    for (int i = 0; i < n; i++) {
      int p = partitionOf(hashes[i]);
      rows[p][counts[p]++] = i;
    }
    return rows;
  }

  /** Mixes a hash of each string's UTF-8 bytes (0 for NULL) into {@code hashes}, decoding nothing. */
  private static void hashUtf8Into(VarCharVector vector, int[] hashes, int n) {
    ArrowBuf data = vector.getDataBuffer();
    for (int i = 0; i < n; i++) {
      int h = 0;
      if (!vector.isNull(i)) {
        h = 1;
        for (long b = vector.getStartOffset(i), end = vector.getEndOffset(i); b < end; b++) {
          h = 31 * h + data.getByte(b);
        }
      }
      hashes[i] = hashes[i] * 31 + h;
    }
  }

  // The high bits: the low ones choose buckets in the merge's own hash tables.
  private static int partitionOf(int hash) {
    return (hash * 0x9E3779B9) >>> (32 - Integer.numberOfTrailingZeros(MERGE_PARTITIONS));
  }

  /** Runs {@code stage} over {@code input} to its end, copying its output into one root this operator owns. */
  private VectorSchemaRoot drain(Operator input, Function<Operator, Operator> stage, Schema schema,
      MorselWorkers workers) {
    Operator op;
    try {
      op = stage.apply(input);
    } catch (RuntimeException e) {
      input.close();
      throw e;
    }
    VectorSchemaRoot out = null;
    try (op) {
      out = VectorSchemaRoot.create(schema, allocator);
      int rows = 0;
      Batch batch;
      while (!workers.stopping() && (batch = op.next()) != null) {
        for (int c = 0; c < schema.getFields().size(); c++) {
          FieldVector source = batch.root().getVector(c);
          FieldVector target = out.getVector(c);
          for (int i = 0; i < batch.count(); i++) {
            target.copyFromSafe(batch.row(i), rows + i, source);
          }
        }
        rows += batch.count();
        out.setRowCount(rows);
      }
      for (FieldVector v : out.getFieldVectors()) {
        v.setValueCount(rows);
      }
      out.setRowCount(rows);
      return out;
    } catch (RuntimeException e) {
      if (out != null) {
        out.close();
      }
      throw e;
    }
  }

  @Override
  public void close() {
    try {
      if (finalOp != null) {
        finalOp.close();
      }
    } finally {
      closeAll(partials);
      closeAll(merged);
      try {
        shared.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing a parallel aggregate's shared state", e);
      }
    }
  }

  private static void closeAll(VectorSchemaRoot[] roots) {
    if (roots != null) {
      for (VectorSchemaRoot root : roots) {
        if (root != null) {
          root.close();
        }
      }
    }
  }

  /** Roots this operator owns, in order: all their rows, or the selected ones of each. */
  private static final class RootsOperator implements Operator {
    private final VectorSchemaRoot[] roots;
    private final int[][] selections;
    private int next;

    /** @param selections per root the rows to return, ascending, or null for all rows */
    RootsOperator(VectorSchemaRoot[] roots, int[][] selections) {
      this.roots = roots;
      this.selections = selections;
    }

    @Override
    public Batch next() {
      while (next < roots.length) {
        int i = next++;
        VectorSchemaRoot root = roots[i];
        if (root == null || root.getRowCount() == 0) {
          continue;
        }
        if (selections == null) {
          return Batch.dense(root);
        }
        if (selections[i].length > 0) {
          return new Batch(root, selections[i], selections[i].length);
        }
      }
      return null;
    }

    @Override
    public void close() {
      // The roots belong to the enclosing operator.
    }
  }
}
