package dev.lake.sql;

import dev.lake.engine.TableHandle;
import dev.lake.engine.Version;
import dev.lake.engine.VersionInfo;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDateLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlTimestampLiteral;
import org.apache.calcite.sql.SqlUnknownLiteral;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code t FOR TIMESTAMP AS OF ts}: the table read at the latest version committed at or before
 * ts (UTC, compared to the microsecond), from the commit times the table's engine records ({@link
 * TableHandle#versions()}). The time is a {@code TIMESTAMP '...'} or {@code DATE '...'} literal or
 * a string in the same forms ({@code '2024-05-01 12:00:00'}, also ISO-8601 with an offset).
 */
final class TimeTravel {
  private TimeTravel() {}

  /** What a versioned table name carries after {@link CalciteTables#VERSION_MARK} for a time: {@code T<micros>}. */
  static final String TIME_MARK = "T";

  /** Whether {@code period} is a time (not a version number). */
  static boolean isTime(SqlNode period) {
    return period instanceof SqlTimestampLiteral || period instanceof SqlDateLiteral
        || period instanceof SqlCharStringLiteral
        || period instanceof SqlUnknownLiteral u && (u.tag.equalsIgnoreCase("TIMESTAMP") || u.tag.equalsIgnoreCase("DATE"));
  }

  /**
   * Microseconds since the epoch {@code period} stands for.
   *
   * @throws SqlException INVALID when a string is not a timestamp
   */
  static long micros(SqlNode period) {
    String text = switch (period) {
      case SqlTimestampLiteral t -> t.toFormattedString();
      case SqlDateLiteral d -> d.toFormattedString();
      case SqlCharStringLiteral s -> s.getValueAs(String.class);
      case SqlUnknownLiteral u -> u.getValue(); // TIMESTAMP '...' as the parser leaves it
      default -> throw new IllegalArgumentException("not a time: " + period);
    };
    try {
      String iso = text.trim().replace(' ', 'T');
      Instant instant = iso.length() == 10 ? java.time.LocalDate.parse(iso).atStartOfDay(ZoneOffset.UTC).toInstant()
          : iso.endsWith("Z") || iso.matches(".*[+-]\\d\\d:\\d\\d$") ? java.time.OffsetDateTime.parse(iso).toInstant()
          : LocalDateTime.parse(iso).toInstant(ZoneOffset.UTC);
      return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
    } catch (java.time.DateTimeException | ArithmeticException e) {
      SqlParserPos pos = period.getParserPosition();
      throw new SqlException(SqlException.Kind.INVALID, "FOR TIMESTAMP AS OF needs a timestamp such as"
          + " TIMESTAMP '2024-05-01 12:00:00', got " + period + " (line " + pos.getLineNum() + ", column "
          + pos.getColumnNum() + ")", pos.getLineNum(), pos.getColumnNum(), e);
    }
  }

  /**
   * The latest version of {@code table} committed at or before {@code micros}.
   *
   * @throws SqlException VERSION_NOT_FOUND when every readable version was committed later,
   *     naming the table, the time and the first readable version's commit time
   */
  static Version at(TableHandle table, TableName name, long micros, SqlParserPos pos) {
    List<VersionInfo> versions = table.versions();
    Version found = null;
    for (VersionInfo v : versions) {
      if (ChronoUnit.MICROS.between(Instant.EPOCH, v.committedAt()) <= micros
          && (found == null || v.version().number() > found.number())) {
        found = v.version();
      }
    }
    if (found == null) {
      String first = versions.isEmpty() ? "it has no readable version"
          : "its first readable version, " + versions.getFirst().version().number() + ", was committed at "
              + text(ChronoUnit.MICROS.between(Instant.EPOCH, versions.getFirst().committedAt()));
      int line = pos == null ? 0 : pos.getLineNum();
      int column = pos == null ? 0 : pos.getColumnNum();
      throw new SqlException(SqlException.Kind.VERSION_NOT_FOUND, "table " + name.qualified()
          + " has no version committed at or before " + text(micros) + " UTC; " + first, line, column, null);
    }
    return found;
  }

  private static String text(long micros) {
    return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
        (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC).toString().replace('T', ' ');
  }
}
