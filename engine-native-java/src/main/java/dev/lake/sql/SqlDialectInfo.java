package dev.lake.sql;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.parser.SqlParser;

/**
 * What lake's SQL dialect offers, as catalog tools ask for it (JDBC {@code getSQLKeywords},
 * {@code getStringFunctions}...): the parser's reserved words beyond SQL:2003 and the scalar
 * functions {@link SqlEngine} runs. The lists name only functions that execute today; a function
 * Calcite validates but lake cannot run is not listed.
 */
public final class SqlDialectInfo {

  private SqlDialectInfo() {}

  /** Reserved words of lake's parser that are not SQL:2003 keywords, upper case, sorted. */
  public static List<String> keywords() {
    String jdbc = SqlParser.create("").getMetadata().getJdbcKeywords();
    return Arrays.stream(jdbc.split(","))
        .map(String::trim)
        .filter(word -> !word.isEmpty())
        .map(word -> word.toUpperCase(Locale.ROOT))
        .sorted()
        .distinct()
        .toList();
  }

  /** Numeric scalar functions. */
  public static List<String> numericFunctions() {
    return List.of("MOD");
  }

  /** String scalar functions. */
  public static List<String> stringFunctions() {
    return List.of("CHAR_LENGTH", "CHARACTER_LENGTH", "LOWER", "SUBSTRING", "UPPER");
  }

  /** Date and time functions. */
  public static List<String> datetimeFunctions() {
    return List.of("EXTRACT");
  }

  /** System functions (JDBC's term for functions such as COALESCE and IFNULL). */
  public static List<String> systemFunctions() {
    return List.of("COALESCE");
  }
}
