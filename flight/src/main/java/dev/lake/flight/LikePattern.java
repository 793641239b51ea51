package dev.lake.flight;

import java.util.regex.Pattern;

/**
 * A Flight SQL / JDBC search pattern: {@code %} matches any run of characters, {@code _} any one
 * character, and a backslash makes the next character literal (the search string escape lake
 * reports in GetSqlInfo). An absent pattern matches everything.
 */
final class LikePattern {

  private final Pattern regex;

  private LikePattern(Pattern regex) {
    this.regex = regex;
  }

  static LikePattern of(String pattern) {
    if (pattern == null) {
      return new LikePattern(null);
    }
    StringBuilder regex = new StringBuilder(pattern.length() + 8);
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\' && i + 1 < pattern.length()) {
        regex.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
      } else if (c == '%') {
        regex.append(".*");
      } else if (c == '_') {
        regex.append('.');
      } else {
        regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return new LikePattern(Pattern.compile(regex.toString(), Pattern.DOTALL));
  }

  boolean matches(String value) {
    return regex == null || regex.matcher(value).matches();
  }
}
