package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.StatusException;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class LikePatternTest {

  @Test
  void percentAndUnderscoreAreWildcardsAndTheRestIsLiteral() {
    assertTrue(LikePattern.of("epi%").matches("episodes"));
    assertTrue(LikePattern.of("%").matches(""));
    assertTrue(LikePattern.of("t_ble").matches("table"));
    assertFalse(LikePattern.of("t_ble").matches("tble"));
    assertFalse(LikePattern.of("a.c").matches("abc"));
    assertTrue(LikePattern.of("a.c").matches("a.c"));
    assertFalse(LikePattern.of("epi").matches("episodes"));
    assertTrue(LikePattern.of("%sod%").matches("episodes"));
    assertTrue(LikePattern.of("e%s").matches("episodes"));
    assertFalse(LikePattern.of("e%x").matches("episodes"));
    assertTrue(LikePattern.of("").matches(""));
    assertFalse(LikePattern.of("").matches("a"));
  }

  @Test
  void backslashEscapesAWildcardAndATrailingBackslashIsLiteral() {
    assertTrue(LikePattern.of("run\\_1").matches("run_1"));
    assertFalse(LikePattern.of("run\\_1").matches("runx1"));
    assertTrue(LikePattern.of("100\\%").matches("100%"));
    assertFalse(LikePattern.of("100\\%").matches("1000"));
    assertTrue(LikePattern.of("a\\\\b").matches("a\\b"));
    assertTrue(LikePattern.of("ab\\").matches("ab\\"));
  }

  @Test
  void underscoreMatchesOneCodePointNotOneChar() {
    assertTrue(LikePattern.of("r_bot").matches("r\uD83E\uDD16bot"));
    assertFalse(LikePattern.of("r__bot").matches("r\uD83E\uDD16bot"));
  }

  @Test
  void absentPatternMatchesEverything() {
    assertTrue(LikePattern.of(null).matches("anything"));
  }

  @Test
  void agreesWithARegularExpressionOnSeededRandomPatterns() {
    long seed = 20261201L;
    Random random = new Random(seed);
    String alphabet = "ab%_\\";
    for (int round = 0; round < 20_000; round++) {
      StringBuilder pattern = new StringBuilder();
      for (int i = random.nextInt(8); i > 0; i--) {
        pattern.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      StringBuilder text = new StringBuilder();
      for (int i = random.nextInt(8); i > 0; i--) {
        text.append("ab%_".charAt(random.nextInt(4)));
      }
      boolean expected = reference(pattern.toString()).matcher(text).matches();
      assertEquals(expected, LikePattern.of(pattern.toString()).matches(text.toString()),
          "seed " + seed + " round " + round + ": '" + pattern + "' against '" + text + "'");
    }
  }

  @Test
  void hostilePatternsStayWithinTheStepBound() {
    String name = "a".repeat(128);
    String[] hostile = {
        "%".repeat(1000) + "b",
        "%a".repeat(500) + "b",
        "%" + "a".repeat(1022) + "b",
        "%" + "_".repeat(1000) + "b",
        ("%" + "a".repeat(60) + "b").repeat(16),
    };
    for (String text : hostile) {
      LikePattern pattern = LikePattern.of(text);
      long[] steps = {0};
      assertFalse(pattern.matches(name, steps));
      long bound = (long) (name.length() + 1) * (pattern.tokenCount() + 2);
      assertTrue(steps[0] <= bound, "pattern of " + text.length() + " characters took "
          + steps[0] + " steps, bound " + bound);
    }
    long[] steps = {0};
    assertFalse(LikePattern.of("%".repeat(1000) + "b").matches(name, steps));
    assertTrue(steps[0] <= 2L * (name.length() + 2), "runs of % collapse: " + steps[0] + " steps");
  }

  @Test
  void patternLongerThanTheLimitIsInvalidArgumentNamingTheField() {
    StatusException e = assertThrows(StatusException.class,
        () -> LikePattern.of("%".repeat(LikePattern.MAX_LENGTH + 1), "table_name_filter_pattern"));
    assertEquals(GrpcStatus.INVALID_ARGUMENT, e.status());
    assertTrue(e.message().contains("table_name_filter_pattern"), e.message());
    assertTrue(e.message().contains(String.valueOf(LikePattern.MAX_LENGTH)), e.message());
  }

  /** The old translation to a regular expression: right, but exponential on hostile input. */
  private static Pattern reference(String pattern) {
    StringBuilder regex = new StringBuilder();
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
    return Pattern.compile(regex.toString(), Pattern.DOTALL);
  }
}
