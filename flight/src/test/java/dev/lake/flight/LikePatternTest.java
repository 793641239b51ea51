package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
  }

  @Test
  void backslashEscapesAWildcard() {
    assertTrue(LikePattern.of("run\\_1").matches("run_1"));
    assertFalse(LikePattern.of("run\\_1").matches("runx1"));
    assertTrue(LikePattern.of("100\\%").matches("100%"));
  }

  @Test
  void absentPatternMatchesEverything() {
    assertTrue(LikePattern.of(null).matches("anything"));
  }
}
