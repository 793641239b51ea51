package dev.lake.sql.slt;

import dev.lake.sql.slt.SltRecord.Condition;
import dev.lake.sql.slt.SltResult.Outcome;
import dev.lake.sql.slt.SltResult.Problem;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Runs a {@link SltScript} against a {@link SltDatabase} and judges every query, as SQLite's
 * harness does: values formatted by the declared column types, sorted as the sort mode says,
 * then compared value by value, or by their MD5 hash when the script gives a hash. A labelled
 * query must also give the same values as earlier queries with its label.
 *
 * <p>A {@code statement ok} that fails ends the script's judging when the statement changes data
 * (the rest of its queries count as {@link Outcome#BLOCKED}); one that only defines an index or a
 * view does not, since an index never changes a result and a query on a missing view fails on
 * its own.
 */
public final class SltRunner {

  private static final Pattern HARMLESS = Pattern.compile(
      "(?is)\\s*(CREATE\\s+(UNIQUE\\s+)?INDEX|DROP\\s+INDEX|CREATE\\s+VIEW|DROP\\s+VIEW)\\b.*");

  /** Values of a wrong result shown in its problem before it is cut short. */
  private static final int SHOWN = 12;

  private SltRunner() {}

  /** Runs every record {@code database} is admitted to; never throws for what the database does. */
  public static SltResult run(SltScript script, SltDatabase database, String databaseName) {
    SltResult result = new SltResult(script.name(), databaseName);
    long start = System.nanoTime();
    runRecords(script, database, result);
    result.elapsed((System.nanoTime() - start) / 1_000_000);
    return result;
  }

  private static void runRecords(SltScript script, SltDatabase database, SltResult result) {
    Set<String> names = database.names();
    Map<String, String> labels = new HashMap<>();
    int threshold = 0;
    boolean blocked = false;
    for (SltRecord record : script.records()) {
      if (!admitted(record.conditions(), names)) {
        if (record instanceof SltRecord.Query) {
          result.skip();
        }
        continue;
      }
      switch (record) {
        case SltRecord.Halt h -> {
          return;
        }
        case SltRecord.HashThreshold h -> threshold = h.threshold();
        case SltRecord.Statement s -> {
          if (blocked) {
            continue;
          }
          Problem failure = statement(s, database);
          result.statement(failure);
          if (failure != null && !s.expectError() && !HARMLESS.matcher(s.sql()).matches()) {
            blocked = true;
          }
        }
        case SltRecord.Query q -> {
          if (blocked) {
            result.count(Outcome.BLOCKED);
            continue;
          }
          query(q, database, result, labels, threshold);
        }
      }
    }
  }

  private static boolean admitted(List<Condition> conditions, Set<String> names) {
    for (Condition c : conditions) {
      if (!c.admits(names)) {
        return false;
      }
    }
    return true;
  }

  private static Problem statement(SltRecord.Statement s, SltDatabase database) {
    try {
      database.execute(s.sql());
    } catch (SltDatabase.Failure f) {
      if (s.expectError()) {
        return s.errorKind() == null || s.errorKind().equals(f.kind()) ? null
            : new Problem(s.line(), Outcome.WRONG, s.sql(),
                "expected an error of kind " + s.errorKind() + ", got " + f.kind() + ": " + f.getMessage());
      }
      return new Problem(s.line(), f.internal() ? Outcome.CRASHED : Outcome.REFUSED, s.sql(),
          "statement failed: " + f.kind() + ": " + f.getMessage());
    }
    return s.expectError()
        ? new Problem(s.line(), Outcome.WRONG, s.sql(), "statement succeeded, an error was expected")
        : null;
  }

  private static void query(SltRecord.Query q, SltDatabase database, SltResult result,
      Map<String, String> labels, int threshold) {
    List<List<Object>> rows;
    try {
      rows = database.query(q.sql());
    } catch (SltDatabase.Failure f) {
      if (q.expectError()) {
        if (q.errorKind() == null || q.errorKind().equals(f.kind())) {
          result.count(Outcome.PASSED);
        } else {
          result.problem(new Problem(q.line(), Outcome.WRONG, q.sql(),
              "expected an error of kind " + q.errorKind() + ", got " + f.kind() + ": " + f.getMessage()), null);
        }
        return;
      }
      result.problem(new Problem(q.line(), f.internal() ? Outcome.CRASHED : Outcome.REFUSED, q.sql(),
          f.kind() + ": " + f.getMessage()), f.kind());
      return;
    }
    if (q.expectError()) {
      result.problem(new Problem(q.line(), Outcome.WRONG, q.sql(),
          "query returned " + rows.size() + " rows, an error was expected"), null);
      return;
    }
    String wrong = judge(q, rows, labels, threshold);
    if (wrong == null) {
      result.count(Outcome.PASSED);
    } else {
      result.problem(new Problem(q.line(), Outcome.WRONG, q.sql(), wrong), null);
    }
  }

  /** Null when the rows are what the query expects, else what differs. */
  static String judge(SltRecord.Query q, List<List<Object>> rows, Map<String, String> labels,
      int threshold) {
    for (List<Object> row : rows) {
      if (row.size() != q.types().length()) {
        return "returned " + row.size() + " columns, the query's types say " + q.types().length();
      }
    }
    List<List<String>> formatted = new ArrayList<>(SltValues.format(rows, q.types()));
    List<String> values = new ArrayList<>();
    switch (q.sort()) {
      case NOSORT -> formatted.forEach(values::addAll);
      case ROWSORT -> {
        formatted.sort(ROWS);
        formatted.forEach(values::addAll);
      }
      case VALUESORT -> {
        formatted.forEach(values::addAll);
        values.sort(Comparator.naturalOrder());
      }
    }
    String hash = SltValues.md5(values);
    String problem = switch (q.expected()) {
      case SltRecord.Hash h -> h.count() == values.size() && h.md5().equals(hash) ? null
          : "expected " + h.count() + " values hashing to " + h.md5() + ", got " + describe(values, hash);
      case SltRecord.Values v -> matches(v.lines(), values, formatted, q.sort()) ? null
          : "expected " + show(v.lines()) + ", got "
              + (threshold > 0 && values.size() > threshold ? values.size() + " values hashing to " + hash : show(values));
    };
    if (problem == null && q.label() != null) {
      String earlier = labels.putIfAbsent(q.label(), hash);
      if (earlier != null && !earlier.equals(hash)) {
        return "values differ from an earlier query labelled " + q.label() + ": " + describe(values, hash);
      }
    }
    return problem;
  }

  /** Value per line, or (not for valuesort) one row per line with its values separated by spaces. */
  private static boolean matches(List<String> lines, List<String> values, List<List<String>> rows,
      SltRecord.SortMode sort) {
    if (lines.equals(values)) {
      return true;
    }
    if (sort == SltRecord.SortMode.VALUESORT || lines.size() != rows.size() || rows.isEmpty()
        || rows.getFirst().size() < 2) {
      return false;
    }
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).strip().replaceAll("\\s+", " ").equals(String.join(" ", rows.get(i)))) {
        return false;
      }
    }
    return true;
  }

  /** Rows ordered by their values compared as strings, column by column (the harness's rowsort). */
  private static final Comparator<List<String>> ROWS = (a, b) -> {
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      int c = a.get(i).compareTo(b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  };

  private static String describe(List<String> values, String hash) {
    return values.size() + " values hashing to " + hash + " " + show(values);
  }

  private static String show(List<String> values) {
    List<String> head = values.size() > SHOWN ? values.subList(0, SHOWN) : values;
    return "[" + String.join(", ", head) + (values.size() > SHOWN ? ", ... " + values.size() + " in all" : "") + "]";
  }

}
