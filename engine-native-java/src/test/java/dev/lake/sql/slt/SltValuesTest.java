package dev.lake.sql.slt;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

class SltValuesTest {

  @Test
  void integersTruncateRealsAndReadTheLeadingDigitsOfText() {
    assertEquals("NULL", SltValues.format(null, 'I'));
    assertEquals("-7", SltValues.format(-7L, 'I'));
    assertEquals("2", SltValues.format(2.99, 'I'));
    assertEquals("-2", SltValues.format(-2.99, 'I'));
    assertEquals("12", SltValues.format(new BigDecimal("12.75"), 'I'));
    assertEquals("1", SltValues.format(true, 'I'));
    assertEquals("42", SltValues.format("42abc", 'I'));
    assertEquals("0", SltValues.format("abc", 'I'));
    assertEquals(Long.toString(Long.MAX_VALUE), SltValues.format(1e300, 'I'));
  }

  @Test
  void realsHaveThreeDecimalsOfTheExactBinaryValueAsPrintfGives() {
    assertEquals("1.500", SltValues.format(1.5, 'R'));
    assertEquals("3.000", SltValues.format(3L, 'R'));
    assertEquals("0.334", SltValues.format(new BigDecimal("0.3335"), 'R'));
    // 1.0005 is stored as 1.000499999..., which printf rounds down (2.0005 as 2.0005000...2, up).
    assertEquals("1.000", SltValues.format(1.0005, 'R'));
    assertEquals("2.001", SltValues.format(2.0005, 'R'));
    assertEquals("-0.000", SltValues.format(-0.0001, 'R'));
    assertEquals("NULL", SltValues.format(null, 'R'));
  }

  @Test
  void textShowsEmptyAndReplacesWhatIsNotPrintableAscii() {
    assertEquals("(empty)", SltValues.format("", 'T'));
    assertEquals("h@llo w@rld@", SltValues.format("h\u00e9llo w\u00f6rld\n", 'T'));
    assertEquals("table t1 row 3", SltValues.format("table t1 row 3", 'T'));
    assertEquals("1.5", SltValues.format(1.5, 'T'));
    assertEquals("100.0", SltValues.format(100.0, 'T'));
    assertEquals("NULL", SltValues.format(null, 'T'));
  }

  @Test
  void hashIsTheMd5OfEveryValueFollowedByANewline() {
    // printf '1\n2\n' | md5sum
    assertEquals("6ddb4095eb719e2a9f0a3f95677d24e0", SltValues.md5(List.of("1", "2")));
    assertEquals("d41d8cd98f00b204e9800998ecf8427e", SltValues.md5(List.of()));
  }
}
