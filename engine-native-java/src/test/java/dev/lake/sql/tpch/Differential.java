package dev.lake.sql.tpch;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.RecordBatchReader;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableHandle;
import dev.lake.sql.SqlEngine;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * What the seeded DuckDB differential tests share: the {@code log} engine they load, setting
 * generated values (NULLs among them) into Arrow vectors, loading the rows in three appends, and
 * the loop that answers each generated query by both engines and compares the rows.
 */
public final class Differential {
  private Differential() {}

  /** One generated query as lake and as DuckDB spell it; {@code ordered}: compare rows in order. */
  public record Query(String lake, String duckdb, boolean ordered) {}

  /** Reads DuckDB's rows of a result set into the values {@link Results} compares. */
  @FunctionalInterface
  public interface DuckRows {
    List<List<Object>> read(ResultSet rs) throws SQLException;
  }

  /**
   * Sets row {@code row} of {@code vector} to {@code value}, NULL when it is null: an Integer,
   * Long, Double, Boolean, String (UTF-8), LocalDate, BigDecimal, or a Long of microseconds for a
   * timestamp column, as the vector's type asks.
   */
  public static void set(FieldVector vector, int row, Object value) {
    if (value == null) {
      vector.setNull(row);
      return;
    }
    switch (vector) {
      case IntVector v -> v.setSafe(row, (Integer) value);
      case BigIntVector v -> v.setSafe(row, (Long) value);
      case Float8Vector v -> v.setSafe(row, (Double) value);
      case BitVector v -> v.setSafe(row, (Boolean) value ? 1 : 0);
      case VarCharVector v -> v.setSafe(row, ((String) value).getBytes(StandardCharsets.UTF_8));
      case DateDayVector v -> v.setSafe(row, Math.toIntExact(((LocalDate) value).toEpochDay()));
      case DecimalVector v -> v.setSafe(row, (BigDecimal) value);
      case TimeStampVector v -> v.setSafe(row, (Long) value);
      default -> throw new IllegalArgumentException("no test setter for " + vector.getField());
    }
  }

  /** The {@code log} table engine with {@code blockRows} rows a block. */
  public static TableEngine logEngine(int blockRows) {
    return ServiceLoader.load(TableEngineFactory.class).stream().map(ServiceLoader.Provider::get)
        .filter(f -> f.name().equals("log")).findFirst().orElseThrow()
        .create(Map.of("log.block.rows", Integer.toString(blockRows)));
  }

  /**
   * Appends the rows of {@code root} to {@code handle} in three appends, so three segments and
   * parallel plans get several morsels; append {@code i} has the idempotency key {@code keyBase
   * + i} (64 hex digits).
   */
  public static void appendInThirds(TableHandle handle, VectorSchemaRoot root, String schema,
      String table, long keyBase, BufferAllocator allocator) throws IOException {
    int rows = root.getRowCount();
    for (int part = 0; part < 3; part++) {
      int from = rows * part / 3;
      try (VectorSchemaRoot slice = root.slice(from, rows * (part + 1) / 3 - from);
          RecordBatchReader reader = new RecordBatchReader(allocator, root.getSchema(),
              List.of(new VectorUnloader(slice).getRecordBatch()))) {
        handle.append(new AppendOperation(schema, table, UUID.randomUUID(),
            String.format("%064x", keyBase + part)), reader);
      }
    }
  }

  /**
   * Generates queries from a seeded random ({@code -Dlake.fuzz.seed=S}, else {@code
   * defaultSeed}; {@code -Dlake.fuzz.iterations=N}, else {@code defaultIterations} of them) and
   * asserts that lake answers each as DuckDB does, DuckDB's rows read by {@code duckRows} and
   * lake's passed through {@code lakeRows}. A failure names the query, its index and the seed.
   */
  public static void assertAnswersAgree(Connection duck, SqlEngine sql, BufferAllocator allocator,
      long defaultSeed, int defaultIterations, Function<Random, Query> generator, DuckRows duckRows,
      UnaryOperator<List<List<Object>>> lakeRows) throws IOException {
    long seed = Long.getLong("lake.fuzz.seed", defaultSeed);
    int iterations = Integer.getInteger("lake.fuzz.iterations", defaultIterations);
    Random random = new Random(seed);
    for (int i = 0; i < iterations; i++) {
      Query q = generator.apply(random);
      List<List<Object>> expected;
      try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery(q.duckdb())) {
        expected = duckRows.read(rs);
      } catch (SQLException e) {
        throw new AssertionError("DuckDB refused query " + i + " (seed " + seed + "): " + q.duckdb(), e);
      }
      List<List<Object>> actual;
      try (ArrowReader reader = sql.prepare(q.lake()).execute(allocator)) {
        actual = lakeRows.apply(Results.read(reader));
      } catch (RuntimeException e) {
        throw new AssertionError("query " + i + " (seed " + seed + ") failed: " + q.lake(), e);
      }
      Results.assertSame("query " + i + " (seed " + seed + "): " + q.lake(), expected, actual,
          q.ordered());
    }
  }
}
