package dev.lake.sql.slt;

import java.util.List;

/**
 * One record of a sqllogictest script, with the line it starts on and the {@code skipif}/{@code
 * onlyif} conditions written before it.
 */
public sealed interface SltRecord {

  int line();

  List<Condition> conditions();

  /** {@code skipif db} (skip when run as {@code db}) or {@code onlyif db} (run only as {@code db}). */
  record Condition(boolean only, String database) {
    /** Whether a database known by {@code names} runs the record this condition guards. */
    boolean admits(java.util.Set<String> names) {
      return only == names.contains(database);
    }
  }

  /**
   * {@code statement ok} or {@code statement error [KIND]}: the statement must succeed, or must
   * fail (with a failure of that kind when one is named, e.g. {@code INVALID}).
   */
  record Statement(int line, List<Condition> conditions, String sql, boolean expectError,
      String errorKind) implements SltRecord {}

  /**
   * {@code query <types> <sort> [label]}: {@code types} has one letter per column ({@code I}
   * integer, {@code R} real, {@code T} text); {@code expected} is what follows {@code ----}.
   * {@code query error [KIND]} (an extension some runners share) expects the query to fail.
   */
  record Query(int line, List<Condition> conditions, String sql, String types, SortMode sort,
      String label, Expected expected, boolean expectError, String errorKind) implements SltRecord {}

  /** {@code hash-threshold n}: results of more than {@code n} values are written as an MD5 hash. */
  record HashThreshold(int line, List<Condition> conditions, int threshold) implements SltRecord {}

  /** {@code halt}: the rest of the script is not run. */
  record Halt(int line, List<Condition> conditions) implements SltRecord {}

  /** How a query's values are ordered before they are compared. */
  enum SortMode {
    /** As the database returned them (the query's ORDER BY decides). */
    NOSORT,
    /** Rows sorted, comparing their formatted values column by column as strings. */
    ROWSORT,
    /** Every value sorted on its own, as strings, regardless of rows. */
    VALUESORT
  }

  /** The expected result: the values one per line (or one row per line), or their count and hash. */
  sealed interface Expected {}

  /** The result written out: each line one value, or one row with its values separated by spaces. */
  record Values(List<String> lines) implements Expected {}

  /** {@code N values hashing to <md5>}. */
  record Hash(int count, String md5) implements Expected {}
}
