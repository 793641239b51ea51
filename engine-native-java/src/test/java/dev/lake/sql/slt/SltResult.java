package dev.lake.sql.slt;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What running one script against one database came to: queries counted by {@link Outcome},
 * statements that failed, and the problems found (every wrong answer and crash; a bounded sample
 * of refusals, with every refusal counted by the database's failure kind).
 */
public final class SltResult {

  /** How one query came out. */
  public enum Outcome {
    /** The result (or the expected error) is what the script says. */
    PASSED,
    /** The database answered, and the answer differs from the script's: a wrong result. */
    WRONG,
    /** The database refused the query or failed it with a typed error (unsupported, invalid, ...). */
    REFUSED,
    /** The database failed with an unexpected (internal) error. */
    CRASHED,
    /**
     * Not run: an earlier statement that changes data failed, so the database no longer holds
     * what the script assumes and no later answer could be judged.
     */
    BLOCKED
  }

  /** One query or statement that did not pass. */
  public record Problem(int line, Outcome outcome, String sql, String detail) {
    @Override
    public String toString() {
      return "line " + line + " " + outcome + ": " + detail + "\n    " + sql.replace("\n", "\n    ");
    }
  }

  /** Refusals kept word for word per script; the rest are only counted. */
  static final int REFUSALS_KEPT = 20;

  private final String script;
  private final String database;
  private final EnumMap<Outcome, Integer> counts = new EnumMap<>(Outcome.class);
  private final Map<String, Integer> refusalKinds = new TreeMap<>();
  private final List<Problem> problems = new ArrayList<>();
  private int skipped;
  private int statements;
  private int failedStatements;
  private int keptRefusals;
  private long millis;

  SltResult(String script, String database) {
    this.script = script;
    this.database = database;
    for (Outcome o : Outcome.values()) {
      counts.put(o, 0);
    }
  }

  void count(Outcome outcome) {
    counts.merge(outcome, 1, Integer::sum);
  }

  void problem(Problem problem, String refusalKind) {
    count(problem.outcome());
    if (problem.outcome() == Outcome.REFUSED || problem.outcome() == Outcome.CRASHED) {
      refusalKinds.merge(refusalKind, 1, Integer::sum);
    }
    if (problem.outcome() != Outcome.REFUSED || keptRefusals++ < REFUSALS_KEPT) {
      problems.add(problem);
    }
  }

  void statement(Problem failure) {
    statements++;
    if (failure != null) {
      failedStatements++;
      problems.add(failure);
    }
  }

  void elapsed(long millis) {
    this.millis = millis;
  }

  /** Wall time the script took, in milliseconds. */
  public long millis() {
    return millis;
  }

  void skip() {
    skipped++;
  }

  public String script() {
    return script;
  }

  public String database() {
    return database;
  }

  public int get(Outcome outcome) {
    return counts.get(outcome);
  }

  /** Queries the database was asked (or would have been, had a statement not failed). */
  public int queries() {
    return counts.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** Queries left out by {@code skipif}/{@code onlyif}. */
  public int skipped() {
    return skipped;
  }

  public int statements() {
    return statements;
  }

  public int failedStatements() {
    return failedStatements;
  }

  /** Refused and crashed queries by the database's failure kind. */
  public Map<String, Integer> refusalKinds() {
    return refusalKinds;
  }

  public List<Problem> problems() {
    return problems;
  }

  public List<Problem> problems(Outcome outcome) {
    return problems.stream().filter(p -> p.outcome() == outcome).toList();
  }

  /** Passed queries over all queries, 0 for a script without queries. */
  public double passRate() {
    return queries() == 0 ? 0 : (double) get(Outcome.PASSED) / queries();
  }

  /** One line: the counts of every outcome. */
  public String summary() {
    return String.format(java.util.Locale.ROOT,
        "%-7s %-45s %6.2f%%  passed %5d  wrong %4d  refused %5d  crashed %4d  blocked %5d  (skipped %d; statements %d, failed %d; %.1f s)",
        database, script, 100 * passRate(), get(Outcome.PASSED), get(Outcome.WRONG),
        get(Outcome.REFUSED), get(Outcome.CRASHED), get(Outcome.BLOCKED), skipped, statements,
        failedStatements, millis / 1000.0);
  }
}
