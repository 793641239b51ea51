package dev.lake.exec.fn;

import static dev.lake.exec.fn.Param.BIGINT;
import static dev.lake.exec.fn.Param.STRING;
import static dev.lake.exec.fn.Param.TEXT;

import dev.lake.exec.Col;
import dev.lake.exec.ExecutionException;
import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Kernel;
import java.util.List;
import java.util.Locale;

/**
 * String functions, PostgreSQL's semantics: positions and lengths count characters (Unicode code
 * points), not bytes or UTF-16 units; {@code octet_length} counts UTF-8 bytes.
 */
public final class StringFunctions {
  private StringFunctions() {}

  /** The longest string a function may build, in characters: more is an error, not an out-of-memory. */
  static final long MAX_RESULT_CHARS = 64L << 20;

  private static final SqlType.Kind UTF8 = SqlType.Kind.UTF8;

  /** {@code char_length(s)}: characters. */
  public static final ScalarFunction CHAR_LENGTH = Scalar.named("char_length", "length", "character_length")
      .takes(STRING)
      .returns(SqlType.Kind.INT64)
      .kernel((args, b, t) -> lengths(args.getFirst(), false));

  /** {@code octet_length(s)}: bytes of its UTF-8 encoding. */
  public static final ScalarFunction OCTET_LENGTH = Scalar.named("octet_length")
      .takes(STRING)
      .returns(SqlType.Kind.INT64)
      .kernel((args, b, t) -> lengths(args.getFirst(), true));

  public static final ScalarFunction UPPER = Scalar.named("upper")
      .takes(STRING)
      .returns(UTF8)
      .rows(a -> ((String) a[0]).toUpperCase(Locale.ROOT));

  public static final ScalarFunction LOWER = Scalar.named("lower")
      .takes(STRING)
      .returns(UTF8)
      .rows(a -> ((String) a[0]).toLowerCase(Locale.ROOT));

  /**
   * {@code substring(s, start [, count])} (also {@code SUBSTRING(s FROM start FOR count)}):
   * characters from the 1-based {@code start}; positions before 1 shorten the count, as the
   * standard says; a negative count is an error.
   */
  public static final ScalarFunction SUBSTRING = Scalar.named("substring", "substr")
      .takes(STRING, BIGINT)
      .takes(STRING, BIGINT, BIGINT)
      .returns(UTF8)
      .kernel((args, b, t) -> batch -> {
        // A typed loop: TPC-H Q22 groups and filters by substring(c_phone FROM 1 FOR 2).
        Col.Objects s = (Col.Objects) args.get(0).eval(batch);
        Col.Longs start = (Col.Longs) args.get(1).eval(batch);
        Col.Longs count = args.size() > 2 ? (Col.Longs) args.get(2).eval(batch) : null;
        Col.Objects out = new Col.Objects(s.size);
        for (int i = 0; i < s.size; i++) {
          String v = (String) s.values[i];
          if (v != null && !start.nulls[i] && (count == null || !count.nulls[i])) {
            out.values[i] = substring(v, start.values[i], count == null ? null : count.values[i]);
          }
        }
        return out;
      });

  /** {@code a || b}: NULL if either is NULL (unlike {@code concat}). */
  public static final ScalarFunction CONCAT_OPERATOR = Scalar.named("||")
      .takes(TEXT, TEXT)
      .returns(UTF8)
      .rows(a -> (String) a[0] + a[1]);

  /** {@code concat(a, ...)}: NULL arguments are skipped; never NULL. */
  public static final ScalarFunction CONCAT = Scalar.named("concat")
      .takesVariadic(TEXT)
      .nullable(args -> SqlType.of(UTF8, false))
      .rows(a -> {
        StringBuilder out = new StringBuilder();
        for (Object v : a) {
          if (v != null) {
            out.append((String) v);
          }
        }
        return out.toString();
      });

  /** {@code concat_ws(separator, a, ...)}: NULL if the separator is; NULL arguments are skipped. */
  public static final ScalarFunction CONCAT_WS = Scalar.named("concat_ws")
      .takes(STRING)
      .takesVariadic(STRING, TEXT)
      .nullable(args -> SqlType.of(UTF8, args.type(0).nullable()))
      .rows(a -> {
        if (a[0] == null) {
          return null;
        }
        StringBuilder out = new StringBuilder();
        boolean first = true;
        for (int i = 1; i < a.length; i++) {
          if (a[i] != null) {
            if (!first) {
              out.append((String) a[0]);
            }
            out.append((String) a[i]);
            first = false;
          }
        }
        return out.toString();
      });

  /** {@code btrim(s [, characters])} (and {@code TRIM([BOTH] [characters FROM] s)}): from both ends. */
  public static final ScalarFunction BTRIM = trim("btrim", true, true, "trim");
  /** {@code ltrim(s [, characters])} (and {@code TRIM(LEADING ...)}). */
  public static final ScalarFunction LTRIM = trim("ltrim", true, false);
  /** {@code rtrim(s [, characters])} (and {@code TRIM(TRAILING ...)}). */
  public static final ScalarFunction RTRIM = trim("rtrim", false, true);

  /**
   * {@code lpad(s, length [, fill])}: {@code s} filled on the left with {@code fill} (a space by
   * default) to {@code length} characters, or cut to its first {@code length}.
   */
  public static final ScalarFunction LPAD = pad("lpad", true);
  /** {@code rpad(s, length [, fill])}: as {@code lpad}, filled on the right. */
  public static final ScalarFunction RPAD = pad("rpad", false);

  /** {@code replace(s, from, to)}: every occurrence; an empty {@code from} changes nothing. */
  public static final ScalarFunction REPLACE = Scalar.named("replace")
      .takes(STRING, STRING, STRING)
      .returns(UTF8)
      .rows(a -> {
        String s = (String) a[0];
        String from = (String) a[1];
        if (from.isEmpty()) {
          return s;
        }
        String result = s.replace(from, (String) a[2]);
        checkLength(result.length(), "replace");
        return result;
      });

  /**
   * {@code strpos(s, sub)} (and {@code POSITION(sub IN s)}): the 1-based character position of the
   * first {@code sub} in {@code s}, 0 if there is none, 1 for an empty {@code sub}.
   */
  public static final ScalarFunction STRPOS = Scalar.named("strpos")
      .takes(STRING, STRING)
      .returns(SqlType.Kind.INT64)
      .rows(a -> {
        String s = (String) a[0];
        int at = s.indexOf((String) a[1]);
        return at < 0 ? 0L : (long) s.codePointCount(0, at) + 1;
      });

  public static final ScalarFunction STARTS_WITH = Scalar.named("starts_with")
      .takes(STRING, STRING)
      .returns(SqlType.Kind.BOOL)
      .rows(a -> ((String) a[0]).startsWith((String) a[1]));

  public static final ScalarFunction ENDS_WITH = Scalar.named("ends_with")
      .takes(STRING, STRING)
      .returns(SqlType.Kind.BOOL)
      .rows(a -> ((String) a[0]).endsWith((String) a[1]));

  /**
   * {@code split_part(s, delimiter, n)}: the {@code n}-th field of {@code s} split at every
   * {@code delimiter}, counted from the end when {@code n} is negative; '' past the last field; an
   * empty delimiter makes {@code s} one field; {@code n = 0} is an error.
   */
  public static final ScalarFunction SPLIT_PART = Scalar.named("split_part")
      .takes(STRING, STRING, BIGINT)
      .returns(UTF8)
      .rows(a -> splitPart((String) a[0], (String) a[1], (Long) a[2]));

  /** {@code left(s, n)}: the first {@code n} characters; a negative {@code n} drops that many from the end. */
  public static final ScalarFunction LEFT = Scalar.named("left")
      .takes(STRING, BIGINT)
      .returns(UTF8)
      .rows(a -> {
        String s = (String) a[0];
        long n = (Long) a[1];
        int length = s.codePointCount(0, s.length());
        return prefix(s, n >= 0 ? Math.min(n, length) : Math.max(0, length + n));
      });

  /** {@code right(s, n)}: the last {@code n} characters; a negative {@code n} drops that many from the start. */
  public static final ScalarFunction RIGHT = Scalar.named("right")
      .takes(STRING, BIGINT)
      .returns(UTF8)
      .rows(a -> {
        String s = (String) a[0];
        long n = (Long) a[1];
        int length = s.codePointCount(0, s.length());
        long keep = n >= 0 ? Math.min(n, length) : Math.max(0, length + n);
        return s.substring(s.offsetByCodePoints(0, (int) (length - keep)));
      });

  /** {@code reverse(s)}: its characters in reverse order (a surrogate pair stays one character). */
  public static final ScalarFunction REVERSE = Scalar.named("reverse")
      .takes(STRING)
      .returns(UTF8)
      .rows(a -> new StringBuilder((String) a[0]).reverse().toString());

  /** {@code repeat(s, n)}: {@code s} {@code n} times; '' for {@code n <= 0}. */
  public static final ScalarFunction REPEAT = Scalar.named("repeat")
      .takes(STRING, BIGINT)
      .returns(UTF8)
      .rows(a -> {
        String s = (String) a[0];
        long n = (Long) a[1];
        if (n <= 0 || s.isEmpty()) {
          return "";
        }
        checkLength(Math.multiplyHigh(n, s.length()) != 0 ? Long.MAX_VALUE : n * s.length(), "repeat");
        return s.repeat((int) n);
      });

  static final List<ScalarFunction> ALL = List.of(CHAR_LENGTH, OCTET_LENGTH, UPPER, LOWER, SUBSTRING,
      CONCAT_OPERATOR, CONCAT, CONCAT_WS, BTRIM, LTRIM, RTRIM, LPAD, RPAD, REPLACE, STRPOS,
      STARTS_WITH, ENDS_WITH, SPLIT_PART, LEFT, RIGHT, REVERSE, REPEAT);

  // ---------------------------------------------------------------- helpers

  static void checkLength(long chars, String function) {
    if (chars > MAX_RESULT_CHARS) {
      throw new ExecutionException(function + " would build a string of " + chars
          + " characters; at most " + MAX_RESULT_CHARS + " are allowed");
    }
  }

  private static Kernel lengths(Kernel arg, boolean bytes) {
    return batch -> {
      Col.Objects in = (Col.Objects) arg.eval(batch);
      Col.Longs out = new Col.Longs(in.size);
      boolean nulls = false;
      for (int i = 0; i < in.size; i++) {
        String s = (String) in.values[i];
        if (s == null) {
          out.nulls[i] = true;
          nulls = true;
        } else {
          out.values[i] = bytes ? utf8Length(s) : s.codePointCount(0, s.length());
        }
      }
      return nulls ? out : out.markNoNulls();
    };
  }

  /** Bytes of the UTF-8 encoding of {@code s}, without encoding it. */
  static long utf8Length(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }

  /** The first {@code chars} characters of {@code s} (at most its length). */
  private static String prefix(String s, long chars) {
    return s.substring(0, s.offsetByCodePoints(0, (int) chars));
  }

  static String substring(String v, long from, Long count) {
    long to;
    if (count == null) {
      to = Long.MAX_VALUE;
    } else {
      if (count < 0) {
        throw new ExecutionException("negative substring length " + count);
      }
      to = from + count < from ? Long.MAX_VALUE : from + count;
    }
    int cps = v.codePointCount(0, v.length());
    long a = Math.max(from, 1);
    long b = Math.min(to, (long) cps + 1);
    if (b <= a) {
      return "";
    }
    int begin = v.offsetByCodePoints(0, (int) (a - 1));
    int end = v.offsetByCodePoints(begin, (int) (b - a));
    return v.substring(begin, end);
  }

  private static ScalarFunction trim(String name, boolean leading, boolean trailing, String... aliases) {
    return Scalar.named(name, aliases)
        .takes(STRING)
        .takes(STRING, STRING)
        .returns(UTF8)
        .rows(a -> trim((String) a[0], a.length > 1 ? (String) a[1] : " ", leading, trailing));
  }

  static String trim(String s, String characters, boolean leading, boolean trailing) {
    int begin = 0;
    int end = s.length();
    if (leading) {
      while (begin < end) {
        int cp = s.codePointAt(begin);
        if (characters.indexOf(cp) < 0) {
          break;
        }
        begin += Character.charCount(cp);
      }
    }
    if (trailing) {
      while (end > begin) {
        int cp = s.codePointBefore(end);
        if (characters.indexOf(cp) < 0) {
          break;
        }
        end -= Character.charCount(cp);
      }
    }
    return s.substring(begin, end);
  }

  private static ScalarFunction pad(String name, boolean left) {
    return Scalar.named(name)
        .takes(STRING, BIGINT)
        .takes(STRING, BIGINT, STRING)
        .returns(UTF8)
        .rows(a -> pad((String) a[0], (Long) a[1], a.length > 2 ? (String) a[2] : " ", left, name));
  }

  static String pad(String s, long length, String fill, boolean left, String function) {
    if (length <= 0) {
      return "";
    }
    int chars = s.codePointCount(0, s.length());
    if (chars >= length) {
      return prefix(s, length);
    }
    if (fill.isEmpty()) {
      return s;
    }
    checkLength(length, function);
    int[] fillPoints = fill.codePoints().toArray();
    StringBuilder padding = new StringBuilder();
    for (long k = 0; k < length - chars; k++) {
      padding.appendCodePoint(fillPoints[(int) (k % fillPoints.length)]);
    }
    return left ? padding.append(s).toString() : s + padding;
  }

  static String splitPart(String s, String delimiter, long n) {
    if (n == 0) {
      throw new ExecutionException("split_part: field position must not be zero");
    }
    if (delimiter.isEmpty()) {
      return n == 1 || n == -1 ? s : "";
    }
    List<String> fields = new java.util.ArrayList<>();
    int from = 0;
    while (true) {
      int at = s.indexOf(delimiter, from);
      if (at < 0) {
        fields.add(s.substring(from));
        break;
      }
      fields.add(s.substring(from, at));
      from = at + delimiter.length();
    }
    long index = n > 0 ? n - 1 : fields.size() + n;
    return index >= 0 && index < fields.size() ? fields.get((int) index) : "";
  }
}
