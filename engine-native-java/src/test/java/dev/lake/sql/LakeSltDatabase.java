package dev.lake.sql;

import dev.lake.sql.slt.SltDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.util.Text;

/**
 * lake as a database under test for the sqllogictest runner: a {@link SqlEngine} over real
 * {@code log} tables in a temporary directory ({@link LogTablesCatalog}), one per script.
 * Statements run through the engine's own DDL and {@code INSERT} ({@link SqlEngine#executeUpdate});
 * queries through {@link SqlEngine#prepare} and {@link PreparedQuery#execute}, on two workers.
 * A {@link SqlException} is a refusal of its kind; any other exception is a crash. Closing
 * checks that every Arrow buffer was released.
 */
public final class LakeSltDatabase implements SltDatabase {

  /** A guard against a query that never ends, far above what any corpus query needs. */
  private static final Duration QUERY_TIMEOUT = Duration.ofMinutes(2);

  private final Path dir;
  private final LogTablesCatalog catalog;
  private final SqlEngine engine;
  private final RootAllocator allocator = new RootAllocator();

  public LakeSltDatabase() {
    try {
      dir = Files.createTempDirectory("lake-slt");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    catalog = new LogTablesCatalog(dir);
    engine = new SqlEngine(catalog, Long.MAX_VALUE, 2, QUERY_TIMEOUT);
  }

  @Override
  public Set<String> names() {
    return Set.of("postgresql", "lake");
  }

  @Override
  public void execute(String sql) throws Failure {
    try {
      if (engine.isUpdate(sql)) {
        engine.executeUpdate(sql, allocator);
      } else {
        read(engine.prepare(sql));
      }
    } catch (SqlException e) {
      throw new Failure(e.kind().name(), false, e.getMessage(), e);
    } catch (RuntimeException | Error | IOException e) {
      throw crash(e);
    }
  }

  @Override
  public List<List<Object>> query(String sql) throws Failure {
    try {
      return read(engine.prepare(sql));
    } catch (SqlException e) {
      throw new Failure(e.kind().name(), false, e.getMessage(), e);
    } catch (RuntimeException | Error | IOException e) {
      throw crash(e);
    }
  }

  private static Failure crash(Throwable e) {
    if (e instanceof VirtualMachineError fatal && !(fatal instanceof StackOverflowError)) {
      throw fatal;
    }
    return new Failure(e.getClass().getSimpleName(), true, String.valueOf(e.getMessage()), e);
  }

  private List<List<Object>> read(PreparedQuery query) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    try (ArrowReader reader = query.execute(allocator)) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        List<FieldVector> vectors = root.getFieldVectors();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>(vectors.size());
          for (FieldVector v : vectors) {
            row.add(value(v, r));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  private static Object value(FieldVector v, int r) {
    if (v.isNull(r)) {
      return null;
    }
    return switch (v) {
      case DateDayVector d -> LocalDate.ofEpochDay(d.get(r));
      case TimeStampVector t -> Instant.EPOCH.plus(t.get(r), java.time.temporal.ChronoUnit.MICROS)
          .atOffset(ZoneOffset.UTC).toLocalDateTime();
      default -> {
        Object o = v.getObject(r);
        yield o instanceof Text t ? t.toString() : o;
      }
    };
  }

  @Override
  public void close() {
    try {
      catalog.close();
      allocator.close();
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
