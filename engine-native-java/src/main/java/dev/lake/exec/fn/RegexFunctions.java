package dev.lake.exec.fn;

import static dev.lake.exec.fn.Param.STRING;

import dev.lake.exec.ExecutionException;
import dev.lake.exec.SqlType;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Pattern matching: {@code regexp_replace}, {@code regexp_like} and {@code ILIKE}. Regular
 * expressions are Java's ({@link Pattern}), which agree with PostgreSQL's for the common
 * constructs (classes, anchors, groups, quantifiers, alternation); flags are PostgreSQL's
 * {@code g} (every match), {@code i} (ignore case) and {@code c} (respect case).
 */
public final class RegexFunctions {
  private RegexFunctions() {}

  /**
   * {@code regexp_replace(s, pattern, replacement [, flags])}: the first match (every match with
   * flag {@code g}) replaced; in the replacement {@code \1}..{@code \9} stand for a group and
   * {@code \&} for the whole match, as in PostgreSQL.
   */
  public static final ScalarFunction REGEXP_REPLACE = Scalar.named("regexp_replace")
      .takes(STRING, STRING, STRING)
      .takes(STRING, STRING, STRING, STRING)
      .returns(SqlType.Kind.UTF8)
      .kernel((args, b, t) -> {
        Patterns patterns = new Patterns("regexp_replace");
        return new Rows.RowKernel(args, t, true, a -> {
          String flags = a.length > 3 ? (String) a[3] : "";
          Matcher m = patterns.compile((String) a[1], flags).matcher(new Bounded((String) a[0], "regexp_replace"));
          String replacement = replacement((String) a[2]);
          String result = flags.indexOf('g') >= 0 ? m.replaceAll(replacement) : m.replaceFirst(replacement);
          StringFunctions.checkLength(result.length(), "regexp_replace");
          return result;
        });
      });

  /** {@code regexp_like(s, pattern [, flags])}: whether the pattern matches anywhere in {@code s}. */
  public static final ScalarFunction REGEXP_LIKE = Scalar.named("regexp_like")
      .takes(STRING, STRING)
      .takes(STRING, STRING, STRING)
      .returns(SqlType.Kind.BOOL)
      .kernel((args, b, t) -> {
        Patterns patterns = new Patterns("regexp_like");
        return new Rows.RowKernel(args, t, true, a -> patterns
            .compile((String) a[1], a.length > 2 ? (String) a[2] : "").matcher(new Bounded((String) a[0], "regexp_like"))
            .find());
      });

  /**
   * {@code s ILIKE pattern [ESCAPE e]}: {@code LIKE} ignoring case ({@code %} any characters,
   * {@code _} one character).
   */
  public static final ScalarFunction ILIKE = Scalar.named("ilike")
      .takes(STRING, STRING)
      .takes(STRING, STRING, STRING)
      .returns(SqlType.Kind.BOOL)
      .kernel((args, b, t) -> {
        Patterns patterns = new Patterns("ILIKE");
        return new Rows.RowKernel(args, t, true, a -> {
          String escape = a.length > 2 ? (String) a[2] : null;
          if (escape != null && escape.codePointCount(0, escape.length()) > 1) {
            throw new ExecutionException("ILIKE: the escape must be one character, not '" + escape + "'");
          }
          return patterns.like((String) a[1], escape).matcher(new Bounded((String) a[0], "ILIKE")).matches();
        });
      });

  static final List<ScalarFunction> ALL = List.of(REGEXP_REPLACE, REGEXP_LIKE, ILIKE);

  /**
   * A row's text as the matcher reads it, counting the characters it reads: a pattern that
   * backtracks without end ({@code (a+)+$} over a long run of {@code a}s) fails its query after
   * {@value #MAX_READS} reads instead of keeping a worker busy that cancellation, checked between
   * batches, would never reach.
   */
  static final class Bounded implements CharSequence {
    static final long MAX_READS = 200_000_000L;
    private final String text;
    private final String function;
    private long reads;

    Bounded(String text, String function) {
      this.text = text;
      this.function = function;
    }

    @Override
    public char charAt(int index) {
      if (++reads > MAX_READS) {
        throw new ExecutionException(function + ": the pattern needs more than " + MAX_READS
            + " steps on one value; simplify it (nested quantifiers such as (a+)+ backtrack without end)");
      }
      return text.charAt(index);
    }

    @Override
    public int length() {
      return text.length();
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return text.substring(start, end);
    }

    @Override
    public String toString() {
      return text;
    }
  }

  /** PostgreSQL's replacement syntax ({@code \1}, {@code \&}, {@code \\}) as Java's. */
  static String replacement(String pg) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < pg.length(); i++) {
      char c = pg.charAt(i);
      if (c == '\\' && i + 1 < pg.length()) {
        char next = pg.charAt(++i);
        if (next >= '1' && next <= '9') {
          out.append('$').append(next);
        } else if (next == '&') {
          out.append("$0");
        } else {
          out.append(Matcher.quoteReplacement(String.valueOf(next)));
        }
      } else {
        out.append(Matcher.quoteReplacement(String.valueOf(c)));
      }
    }
    return out.toString();
  }

  /**
   * The last pattern one kernel compiled, kept: a pattern is almost always the same constant on
   * every row. One per kernel, so never shared between threads.
   */
  private static final class Patterns {
    private final String function;
    private String source;
    private String flags;
    private Pattern compiled;

    Patterns(String function) {
      this.function = function;
    }

    Pattern compile(String pattern, String flagText) {
      if (compiled != null && pattern.equals(source) && flagText.equals(flags)) {
        return compiled;
      }
      int bits = 0;
      for (int i = 0; i < flagText.length(); i++) {
        switch (flagText.charAt(i)) {
          case 'g' -> { }
          case 'i' -> bits |= Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;
          case 'c' -> bits &= ~(Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
          default -> throw new ExecutionException(function + ": invalid regular expression flag '"
              + flagText.charAt(i) + "' (g, i and c are supported)");
        }
      }
      if (function.equals("regexp_like") && flagText.indexOf('g') >= 0) {
        throw new ExecutionException("regexp_like: the flag 'g' is not allowed");
      }
      return remember(pattern, flagText, bits);
    }

    Pattern like(String pattern, String escape) {
      String key = escape == null ? "" : escape;
      if (compiled != null && pattern.equals(source) && key.equals(flags)) {
        return compiled;
      }
      StringBuilder regex = new StringBuilder();
      int escapePoint = escape == null || escape.isEmpty() ? -1 : escape.codePointAt(0);
      for (int i = 0; i < pattern.length(); ) {
        int cp = pattern.codePointAt(i);
        i += Character.charCount(cp);
        if (cp == escapePoint) {
          if (i >= pattern.length()) {
            throw new ExecutionException("ILIKE pattern '" + pattern + "' ends with its escape character");
          }
          int next = pattern.codePointAt(i);
          i += Character.charCount(next);
          regex.append(Pattern.quote(new String(Character.toChars(next))));
        } else if (cp == '%') {
          regex.append(".*");
        } else if (cp == '_') {
          regex.append('.');
        } else {
          regex.append(Pattern.quote(new String(Character.toChars(cp))));
        }
      }
      source = pattern;
      flags = key;
      compiled = Pattern.compile(regex.toString(),
          Pattern.DOTALL | Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
      return compiled;
    }

    private Pattern remember(String pattern, String flagText, int bits) {
      try {
        compiled = Pattern.compile(pattern, bits);
      } catch (PatternSyntaxException e) {
        throw new ExecutionException(function + ": invalid regular expression '" + pattern + "': "
            + e.getDescription(), e);
      }
      source = pattern;
      flags = flagText;
      return compiled;
    }
  }
}
