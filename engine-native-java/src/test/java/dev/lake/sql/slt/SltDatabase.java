package dev.lake.sql.slt;

import java.util.List;
import java.util.Set;

/**
 * A database under test for {@link SltRunner}: one fresh database per script. Values come back
 * as Java objects (numbers, strings, booleans, dates, {@code null}); the runner formats them by
 * the query's declared column types ({@link SltValues}), so every database is judged by the same
 * rules.
 */
public interface SltDatabase extends AutoCloseable {

  /**
   * The names this database answers to in {@code skipif}/{@code onlyif} (lake and DuckDB both
   * read the corpus as {@code postgresql}, and also answer to their own name).
   */
  Set<String> names();

  /**
   * Runs a statement that returns no rows ({@code CREATE TABLE}, {@code INSERT}, ...).
   *
   * @throws Failure if the database refuses it or fails running it
   */
  void execute(String sql) throws Failure;

  /**
   * Runs a query to its end.
   *
   * @throws Failure if the database refuses it or fails running it
   */
  List<List<Object>> query(String sql) throws Failure;

  @Override
  void close();

  /**
   * The database said no. {@link #kind()} is the database's own classification (for lake the
   * {@code SqlException.Kind}, for DuckDB its error type); {@link #internal()} marks failures that
   * are the database's bug rather than a refusal of the statement (an unexpected exception).
   */
  final class Failure extends Exception {
    private static final long serialVersionUID = 1L;
    private final String kind;
    private final boolean internal;

    public Failure(String kind, boolean internal, String message, Throwable cause) {
      super(message, cause);
      this.kind = kind;
      this.internal = internal;
    }

    public String kind() {
      return kind;
    }

    public boolean internal() {
      return internal;
    }
  }
}
