package dev.lake.sql.slt;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Formats result values the way SQLite's sqllogictest harness prints them, so results can be
 * compared with the corpus's expected text and hashes: by the column's declared type letter, not
 * by the value's own type. {@code NULL} for a null; {@code I}: the integer (a real or decimal
 * truncated toward zero, text read as its leading integer as SQLite's conversion does, a boolean
 * as 1 or 0); {@code R}: three decimals ({@code printf("%.3f")} of the exact binary value);
 * {@code T}: the text, {@code (empty)} for an empty string, and every character outside printable
 * ASCII replaced by {@code @}.
 */
public final class SltValues {
  private SltValues() {}

  public static String format(Object value, char type) {
    if (value == null) {
      return "NULL";
    }
    return switch (type) {
      case 'I' -> integer(value);
      case 'R' -> real(value);
      case 'T' -> text(value);
      default -> throw new IllegalArgumentException("column type must be I, R or T: " + type);
    };
  }

  private static String integer(Object value) {
    return switch (value) {
      case Long l -> Long.toString(l);
      case Integer i -> Integer.toString(i);
      case Short s -> Short.toString(s);
      case Byte b -> Byte.toString(b);
      case BigInteger b -> b.toString();
      case BigDecimal d -> d.setScale(0, RoundingMode.DOWN).toPlainString();
      case Double d -> doubleToInteger(d);
      case Float f -> doubleToInteger(f);
      case Boolean b -> b ? "1" : "0";
      default -> textToInteger(String.valueOf(value));
    };
  }

  /** SQLite casts a real to int64 by truncation, saturating at the ends of the range (NaN is 0). */
  private static String doubleToInteger(double d) {
    if (Double.isNaN(d)) {
      return "0";
    }
    return Long.toString((long) d);
  }

  /** The leading optionally signed integer of the text, as SQLite reads text as an integer; 0 if none. */
  private static String textToInteger(String s) {
    String t = s.strip();
    int end = 0;
    if (end < t.length() && (t.charAt(end) == '-' || t.charAt(end) == '+')) {
      end++;
    }
    int digits = end;
    while (end < t.length() && Character.isDigit(t.charAt(end)) && t.charAt(end) < 128) {
      end++;
    }
    if (end == digits) {
      return "0";
    }
    try {
      return Long.toString(Long.parseLong(t.substring(0, end)));
    } catch (NumberFormatException overflow) {
      return t.charAt(0) == '-' ? Long.toString(Long.MIN_VALUE) : Long.toString(Long.MAX_VALUE);
    }
  }

  private static String real(Object value) {
    return switch (value) {
      case Double d -> threeDecimals(d);
      case Float f -> threeDecimals(f);
      case BigDecimal d -> d.setScale(3, RoundingMode.HALF_EVEN).toPlainString();
      case Number n -> new BigDecimal(n.toString()).setScale(3, RoundingMode.UNNECESSARY).toPlainString();
      case Boolean b -> b ? "1.000" : "0.000";
      default -> threeDecimals(textToReal(String.valueOf(value)));
    };
  }

  private static String threeDecimals(double d) {
    if (Double.isNaN(d)) {
      return "NaN";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "Inf" : "-Inf";
    }
    String s = new BigDecimal(d).setScale(3, RoundingMode.HALF_EVEN).toPlainString();
    // printf keeps the sign of a negative value that rounds to zero, and of -0.0.
    boolean negative = d < 0 || (d == 0 && 1 / d < 0);
    return negative && !s.startsWith("-") ? "-" + s : s;
  }

  private static double textToReal(String s) {
    String t = s.strip();
    for (int end = t.length(); end > 0; end--) {
      try {
        return Double.parseDouble(t.substring(0, end));
      } catch (NumberFormatException e) {
        // try a shorter prefix
      }
    }
    return 0;
  }

  private static String text(Object value) {
    String s = switch (value) {
      case Double d -> realAsText(d);
      case Float f -> realAsText(f);
      case BigDecimal d -> d.toPlainString();
      case Boolean b -> b ? "1" : "0";
      case java.time.LocalDateTime t -> t.toString().replace('T', ' ');
      default -> String.valueOf(value);
    };
    if (s.isEmpty()) {
      return "(empty)";
    }
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      out.append(c < ' ' || c > '~' ? '@' : c);
    }
    return out.toString();
  }

  /** SQLite's text of a real: 15 significant digits, and always a decimal point. */
  private static String realAsText(double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      return Double.toString(d);
    }
    BigDecimal b = new BigDecimal(d).round(new MathContext(15, RoundingMode.HALF_EVEN)).stripTrailingZeros();
    String s = b.scale() <= 0 ? b.setScale(1).toPlainString() : b.toPlainString();
    return s;
  }

  /** Every value of {@code rows}, formatted by {@code types} (one letter per column). */
  public static List<List<String>> format(List<List<Object>> rows, String types) {
    List<List<String>> out = new ArrayList<>(rows.size());
    for (List<Object> row : rows) {
      List<String> formatted = new ArrayList<>(row.size());
      for (int c = 0; c < row.size(); c++) {
        formatted.add(format(row.get(c), c < types.length() ? types.charAt(c) : 'T'));
      }
      out.add(formatted);
    }
    return out;
  }

  /** The harness's hash: MD5 of each value followed by a newline, in order, as lower-case hex. */
  public static String md5(List<String> values) {
    try {
      MessageDigest md5 = MessageDigest.getInstance("MD5");
      for (String v : values) {
        md5.update(v.getBytes(StandardCharsets.UTF_8));
        md5.update((byte) '\n');
      }
      return HexFormat.of().formatHex(md5.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK always has MD5", e);
    }
  }
}
