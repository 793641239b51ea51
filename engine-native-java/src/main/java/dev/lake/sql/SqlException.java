package dev.lake.sql;

/**
 * A statement that cannot be planned or run. {@link #kind()} says which way it is wrong; when
 * the problem is at a place in the SQL text, {@link #line()} and {@link #column()} give it
 * (1-based, 0 when unknown).
 */
public class SqlException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public enum Kind {
    /** The text does not parse. */
    SYNTAX,
    /** A table or schema does not exist. */
    TABLE_NOT_FOUND,
    /** A table or schema to be created exists already. */
    ALREADY_EXISTS,
    /** A schema to be dropped with RESTRICT still holds tables. */
    NOT_EMPTY,
    /** A column or function does not exist, or types do not fit. */
    INVALID,
    /** Valid SQL that lake does not support yet. */
    UNSUPPORTED,
    /** A table version or snapshot asked for does not exist. */
    VERSION_NOT_FOUND,
    /**
     * The query cannot be computed on this data: division by zero, an overflow, a value that does
     * not cast, a scalar subquery with more than one row. The query's fault; the message names the
     * value.
     */
    EXECUTION,
    /**
     * A table's stored data is damaged (fails its checksum, truncated, missing); the cause is a
     * {@link dev.lake.engine.CorruptDataException} naming table, version, segment and column.
     */
    CORRUPT_DATA,
    /** The engine failed (storage I/O, an unexpected failure); the message may name server paths. */
    INTERNAL,
    /**
     * The query needed more memory than its budget (per query, or the process's allocator limit);
     * the message names the budget. Everything the query held is released.
     */
    RESOURCE_EXHAUSTED,
    /**
     * The query was cancelled ({@link dev.lake.exec.QueryControl#cancel()}, or its thread was
     * interrupted); every worker stopped and everything it held is released.
     */
    CANCELLED,
    /** The query ran past its timeout; every worker stopped and everything it held is released. */
    TIMED_OUT
  }

  private final Kind kind;
  private final int line;
  private final int column;

  public SqlException(Kind kind, String message) {
    this(kind, message, 0, 0, null);
  }

  public SqlException(Kind kind, String message, int line, int column, Throwable cause) {
    super(message, cause);
    this.kind = kind;
    this.line = line;
    this.column = column;
  }

  public Kind kind() {
    return kind;
  }

  public int line() {
    return line;
  }

  public int column() {
    return column;
  }
}
