package dev.lake.sql;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A validated update statement (DDL or {@code INSERT}), ready to run against the catalog it was
 * prepared for. Immutable; each {@link #execute} is one atomic change: on any exception nothing
 * changed, and an {@code INSERT} adds exactly one table version however many rows it writes
 * (none when it writes no rows).
 */
public interface PreparedUpdate {

  /**
   * The types of the statement's {@code ?} parameters, one field per parameter in order (named
   * {@code $0}, {@code $1}, ...; for an {@code INSERT} typed as the column each one fills); empty
   * when it has none.
   */
  Schema parameterSchema();

  /**
   * Runs a statement without parameters.
   *
   * @return the update count (rows inserted, 0 for DDL) and the table version committed
   * @throws SqlException INVALID if the statement has parameters, or naming the column and row
   *     when a value does not fit (NOT NULL, a cast); TABLE_NOT_FOUND / ALREADY_EXISTS /
   *     NOT_EMPTY for DDL on a missing or existing object; TABLE_NOT_FOUND when the table was
   *     dropped after the statement was prepared
   */
  UpdateResult execute(BufferAllocator allocator);

  /**
   * Runs the statement once for every row of {@code parameters} (whose columns bind the
   * {@code ?} in order), all of them together as one change. The reader is consumed, not closed.
   *
   * @return the update count and the table version committed
   * @throws SqlException INVALID when the parameters' count or types do not fit
   *     {@link #parameterSchema()}, naming the parameter; otherwise as {@link #execute(BufferAllocator)}
   */
  UpdateResult execute(BufferAllocator allocator, ArrowReader parameters);
}
