package dev.lake.flight;

import io.vertx.grpc.common.GrpcStatus;

/**
 * A Flight SQL / JDBC search pattern: {@code %} matches any run of characters, {@code _} any one
 * character, and a backslash makes the next character literal (the search string escape lake
 * reports in GetSqlInfo); a backslash at the very end stands for itself. An absent pattern
 * matches everything.
 *
 * <p>Matching never backtracks more than one {@code %} (the last one seen): a greedy two-pointer
 * scan over the name and the pattern's tokens, with runs of {@code %} collapsed. It costs at most
 * {@code (n + 1) * (m + 2)} steps for a name of n characters and a pattern of m tokens, and
 * patterns are at most {@value #MAX_LENGTH} characters long, so a hostile pattern cannot tie up
 * a worker (the regular expression this replaced went exponential on a pattern of many
 * {@code %}). Characters are compared as code points.
 */
final class LikePattern {

  /** Longest pattern accepted: far longer than any name it could match (names are at most 128). */
  static final int MAX_LENGTH = 1024;

  private static final int ANY_ONE = -1;
  private static final int ANY_RUN = -2;
  private static final LikePattern EVERYTHING = new LikePattern(null);

  /** Literal code points, {@link #ANY_ONE} or {@link #ANY_RUN}; null matches everything. */
  private final int[] tokens;

  private LikePattern(int[] tokens) {
    this.tokens = tokens;
  }

  /**
   * Parses a pattern; null means "no filter".
   *
   * @param what the request field it came from, for the error message
   * @throws io.vertx.grpc.server.StatusException INVALID_ARGUMENT if longer than
   *     {@value #MAX_LENGTH} characters
   */
  static LikePattern of(String pattern, String what) {
    if (pattern == null) {
      return EVERYTHING;
    }
    if (pattern.length() > MAX_LENGTH) {
      throw ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, what + " is " + pattern.length()
          + " characters long; the limit is " + MAX_LENGTH);
    }
    int[] points = pattern.codePoints().toArray();
    int[] tokens = new int[points.length];
    int count = 0;
    for (int i = 0; i < points.length; i++) {
      int c = points[i];
      if (c == '\\' && i + 1 < points.length) {
        tokens[count++] = points[++i];
      } else if (c == '%') {
        if (count == 0 || tokens[count - 1] != ANY_RUN) {
          tokens[count++] = ANY_RUN;
        }
      } else if (c == '_') {
        tokens[count++] = ANY_ONE;
      } else {
        tokens[count++] = c;
      }
    }
    return new LikePattern(java.util.Arrays.copyOf(tokens, count));
  }

  /** As {@link #of(String, String)} for a pattern of unnamed origin. */
  static LikePattern of(String pattern) {
    return of(pattern, "the search pattern");
  }

  boolean matches(String value) {
    return matches(value, null);
  }

  /**
   * Whether {@code value} matches; adds the number of steps taken to {@code steps[0]} when
   * {@code steps} is not null (tests bound the work with it).
   */
  boolean matches(String value, long[] steps) {
    if (tokens == null) {
      return true;
    }
    int[] text = value.codePoints().toArray();
    int t = 0;
    int p = 0;
    int star = -1;
    int starText = 0;
    long taken = 0;
    boolean matched;
    while (true) {
      taken++;
      if (t == text.length) {
        while (p < tokens.length && tokens[p] == ANY_RUN) {
          p++;
        }
        matched = p == tokens.length;
        break;
      }
      if (p < tokens.length && tokens[p] == ANY_RUN) {
        star = p++;
        starText = t;
      } else if (p < tokens.length && (tokens[p] == ANY_ONE || tokens[p] == text[t])) {
        p++;
        t++;
      } else if (star >= 0) {
        // Let the last % take one more character and retry what follows it.
        p = star + 1;
        t = ++starText;
      } else {
        matched = false;
        break;
      }
    }
    if (steps != null) {
      steps[0] += taken;
    }
    return matched;
  }

  /** Tokens after parsing (runs of % collapsed), for the work bound in tests. */
  int tokenCount() {
    return tokens == null ? 0 : tokens.length;
  }
}
