package dev.lake.exec.fn;

import dev.lake.exec.ExecutionException;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.Month;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * PostgreSQL's {@code to_timestamp(text, format)} and {@code to_date(text, format)} patterns:
 * {@code YYYY YYY YY Y} (year; two digits are 1970-2069 as PostgreSQL reads them), {@code MM},
 * {@code DD}, {@code DDD} (day of year), {@code HH24}, {@code HH12}/{@code HH} with {@code AM}/
 * {@code PM}, {@code MI}, {@code SS}, {@code MS} (milliseconds), {@code US} (microseconds),
 * {@code FF1}-{@code FF6} (fractions of a second), {@code MON}/{@code MONTH} (English month names,
 * any case), {@code DY}/{@code DAY} (day names, read and ignored). Any other character of the
 * format that is not a letter or digit matches one separator of the input (or none); letters
 * that are not a pattern, and text in double quotes, are skipped over one input character each.
 * Fields read up to their width of digits ({@code YYYY} all the digits before a non-digit); input
 * left after the format ends is ignored (PostgreSQL).
 * Results are in UTC. A value that does not fit its field, or a date that does not exist, is an
 * error naming the input and the pattern's position.
 */
final class DateTimeFormat {
  private enum Kind { YYYY, YYY, YY, Y, MM, DDD, DD, HH24, HH12, MI, SS, MS, US, FF, AM, PM, MONTH, MON, DAY, DY, LITERAL, SEPARATOR }

  private record Node(Kind kind, int position, String text, int width) {}

  private final String function;
  private final String format;
  private final List<Node> nodes;

  private DateTimeFormat(String function, String format) {
    this.function = function;
    this.format = format;
    this.nodes = compile(format);
  }

  static DateTimeFormat of(String function, String format) {
    return new DateTimeFormat(function, format);
  }

  String format() {
    return format;
  }

  private static List<Node> compile(String f) {
    List<Node> nodes = new ArrayList<>();
    String upper = f.toUpperCase(Locale.ROOT);
    int i = 0;
    while (i < f.length()) {
      char c = f.charAt(i);
      int pos = i + 1;
      if (c == '"') {
        int end = f.indexOf('"', i + 1);
        end = end < 0 ? f.length() : end;
        nodes.add(new Node(Kind.LITERAL, pos, f.substring(i + 1, end), end - i - 1));
        i = end + 1;
        continue;
      }
      if (upper.startsWith("FX", i)) {
        i += 2; // exact mode: accepted, matched leniently as PostgreSQL's default mode
        continue;
      }
      Kind k = null;
      int len = 0;
      int width = 0;
      for (Object[] p : PATTERNS) {
        if (upper.startsWith((String) p[0], i)) {
          k = (Kind) p[1];
          len = ((String) p[0]).length();
          width = (Integer) p[2];
          break;
        }
      }
      if (k == null && upper.startsWith("FF", i) && i + 2 < f.length() && f.charAt(i + 2) >= '1' && f.charAt(i + 2) <= '6') {
        k = Kind.FF;
        len = 3;
        width = f.charAt(i + 2) - '0';
      }
      if (k != null) {
        nodes.add(new Node(k, pos, f.substring(i, i + len), width));
        i += len;
      } else if (Character.isLetterOrDigit(c)) {
        nodes.add(new Node(Kind.LITERAL, pos, String.valueOf(c), 1));
        i++;
      } else {
        nodes.add(new Node(Kind.SEPARATOR, pos, String.valueOf(c), 1));
        i++;
      }
    }
    return nodes;
  }

  // Longest spelling first, so that "HH24" wins over "HH" and "MONTH" over "MON" and "MM".
  private static final Object[][] PATTERNS = {
      {"YYYY", Kind.YYYY, 4}, {"HH24", Kind.HH24, 2}, {"HH12", Kind.HH12, 2}, {"MONTH", Kind.MONTH, 9},
      {"A.M.", Kind.AM, 4}, {"P.M.", Kind.PM, 4}, {"YYY", Kind.YYY, 3}, {"DDD", Kind.DDD, 3},
      {"MON", Kind.MON, 3}, {"DAY", Kind.DAY, 9}, {"YY", Kind.YY, 2}, {"MM", Kind.MM, 2},
      {"DD", Kind.DD, 2}, {"HH", Kind.HH12, 2}, {"MI", Kind.MI, 2}, {"SS", Kind.SS, 2},
      {"MS", Kind.MS, 3}, {"US", Kind.US, 6}, {"AM", Kind.AM, 2}, {"PM", Kind.PM, 2},
      {"DY", Kind.DY, 3}, {"Y", Kind.Y, 1},
  };

  /** {@code input} read by this format as microseconds since the epoch (UTC). */
  long parse(String input) {
    int year = 1;
    int month = 1;
    int day = 1;
    int dayOfYear = 0;
    int hour = 0;
    int minute = 0;
    int second = 0;
    long micros = 0;
    boolean twelveHour = false;
    Boolean pm = null;
    int at = 0;
    for (int n = 0; n < nodes.size(); n++) {
      Node node = nodes.get(n);
      if (node.kind() == Kind.SEPARATOR) {
        if (at < input.length() && !Character.isLetterOrDigit(input.charAt(at))) {
          at++;
        }
        continue;
      }
      if (node.kind() == Kind.LITERAL) {
        at = Math.min(input.length(), at + node.width());
        continue;
      }
      while (at < input.length() && input.charAt(at) == ' ') {
        at++;
      }
      if (at >= input.length()) {
        throw error(input, node, "the input ends before it");
      }
      switch (node.kind()) {
        case MONTH, MON -> {
          int start = at;
          while (at < input.length() && Character.isLetter(input.charAt(at))) {
            at++;
          }
          String word = input.substring(start, at);
          month = monthNamed(input, word, node);
        }
        case DAY, DY -> {
          while (at < input.length() && Character.isLetter(input.charAt(at))) {
            at++;
          }
        }
        case AM, PM -> {
          String rest = input.substring(at).toUpperCase(Locale.ROOT);
          String[] spellings = node.width() == 4 ? new String[] {"A.M.", "P.M."} : new String[] {"AM", "PM"};
          if (rest.startsWith(spellings[0])) {
            pm = false;
          } else if (rest.startsWith(spellings[1])) {
            pm = true;
          } else {
            throw error(input, node, "expected " + spellings[0] + " or " + spellings[1] + " at \"" + clip(input.substring(at)) + "\"");
          }
          at += node.width();
        }
        default -> {
          boolean greedy = node.kind() == Kind.YYYY && !nextIsDigits(n);
          int start = at;
          int limit = greedy ? input.length() : Math.min(input.length(), at + node.width());
          while (at < limit && Character.isDigit(input.charAt(at))) {
            at++;
          }
          if (at == start) {
            throw error(input, node, "expected digits at \"" + clip(input.substring(start)) + "\"");
          }
          String digits = input.substring(start, at);
          if (digits.length() > 9) {
            throw error(input, node, "value " + digits + " is out of range");
          }
          int v = Integer.parseInt(digits);
          switch (node.kind()) {
            case YYYY -> year = v;
            case YYY -> year = digits.length() == 3 ? (v < 70 ? 2000 + v : 1000 + v) : v; // as PostgreSQL
            case YY -> year = digits.length() == 2 ? (v < 70 ? 2000 + v : 1900 + v) : v;
            case Y -> year = 2000 + v;
            case MM -> month = range(input, node, v, 1, 12, "month");
            case DD -> day = range(input, node, v, 1, 31, "day");
            case DDD -> dayOfYear = range(input, node, v, 1, 366, "day of the year");
            case HH24 -> hour = range(input, node, v, 0, 24, "hour");
            case HH12 -> {
              hour = range(input, node, v, 1, 12, "hour (1-12)");
              twelveHour = true;
            }
            case MI -> minute = range(input, node, v, 0, 59, "minute");
            case SS -> second = range(input, node, v, 0, 60, "second");
            case MS -> micros += fraction(v, digits.length(), 3) * 1000L;
            case US -> micros += fraction(v, digits.length(), 6);
            case FF -> micros += fraction(v, digits.length(), node.width()) * pow10(6 - node.width());
            default -> throw new IllegalStateException(node.kind().toString());
          }
        }
      }
    }
    // Input past the end of the format is ignored, as PostgreSQL does.
    if (pm != null || twelveHour) {
      hour = hour % 12 + (Boolean.TRUE.equals(pm) ? 12 : 0);
    }
    LocalDate date;
    try {
      date = dayOfYear > 0 ? LocalDate.ofYearDay(year, dayOfYear) : LocalDate.of(year, month, day);
    } catch (DateTimeException e) {
      throw new ExecutionException(function + ": date " + year + "-" + month + "-" + (dayOfYear > 0 ? "day " + dayOfYear : day)
          + " read from '" + clip(input) + "' with format '" + format + "' does not exist");
    }
    long seconds = hour * 3600L + minute * 60L + second;
    return Math.addExact(Math.multiplyExact(date.toEpochDay(), DateTimeFields.MICROS_PER_DAY),
        seconds * DateTimeFields.MICROS_PER_SECOND + micros);
  }

  private boolean nextIsDigits(int n) {
    if (n + 1 >= nodes.size()) {
      return false;
    }
    Kind next = nodes.get(n + 1).kind();
    return next != Kind.SEPARATOR && next != Kind.LITERAL && next != Kind.MONTH && next != Kind.MON
        && next != Kind.DAY && next != Kind.DY && next != Kind.AM && next != Kind.PM;
  }

  /** The microseconds (of {@code unitDigits} digits) {@code v} of {@code digits} digits stands for: "5" of MS is 500. */
  private static long fraction(long v, int digits, int unitDigits) {
    return v * pow10(unitDigits - digits);
  }

  private static long pow10(int n) {
    long p = 1;
    for (int i = 0; i < n; i++) {
      p *= 10;
    }
    return p;
  }

  private int range(String input, Node node, int v, int min, int max, String what) {
    if (v < min || v > max) {
      throw error(input, node, what + " " + v + " is out of range " + min + "-" + max);
    }
    return v;
  }

  private int monthNamed(String input, String word, Node node) {
    for (Month m : Month.values()) {
      String full = m.getDisplayName(TextStyle.FULL, Locale.ENGLISH);
      String shortName = m.getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
      boolean matches = node.kind() == Kind.MONTH ? word.equalsIgnoreCase(full) : word.equalsIgnoreCase(shortName);
      if (matches) {
        return m.getValue();
      }
    }
    throw error(input, node, "\"" + clip(word) + "\" is not a month name");
  }

  private ExecutionException error(String input, Node node, String what) {
    return new ExecutionException(function + ": cannot read '" + clip(input) + "' with format '" + format
        + "': pattern " + node.text() + " at position " + node.position() + ": " + what);
  }

  private static String clip(String s) {
    return s.length() > 40 ? s.substring(0, 40) + "..." : s;
  }
}
