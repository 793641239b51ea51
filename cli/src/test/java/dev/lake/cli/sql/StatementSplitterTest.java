package dev.lake.cli.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatementSplitterTest {

  @Test
  void splitsAtSemicolonsAndKeepsALastStatementWithoutOne() {
    assertEquals(List.of("SELECT 1", "SELECT 2", "SELECT 3"),
        StatementSplitter.split("SELECT 1;\nSELECT 2 ;  SELECT 3"));
  }

  @Test
  void semicolonsInLiteralsIdentifiersAndCommentsDoNotEndAStatement() {
    String script = "SELECT 'a;b', 'it''s;' AS \"x;y\" -- not here;\nFROM t /* nor; /* nested; */ here; */;"
        + "SELECT 2;";
    assertEquals(List.of("SELECT 'a;b', 'it''s;' AS \"x;y\" -- not here;\nFROM t /* nor; /* nested; */ here; */",
        "SELECT 2"), StatementSplitter.split(script));
  }

  @Test
  void emptyStatementsAndCommentOnlyTextAreDropped() {
    assertEquals(List.of("SELECT 1"), StatementSplitter.split(";;\n -- only a comment;\n/* and; another */;SELECT 1;;"));
    assertEquals(List.of(), StatementSplitter.split("  -- nothing\n  "));
  }

  @Test
  void fedInPiecesItCompletesStatementsAcrossLines() {
    StatementSplitter splitter = new StatementSplitter();
    List<String> done = new ArrayList<>();
    done.addAll(splitter.feed("SELECT '"));
    done.addAll(splitter.feed(";'\n"));
    assertTrue(splitter.pending());
    done.addAll(splitter.feed("-"));
    done.addAll(splitter.feed("- a comment; still\n; SELECT /"));
    done.addAll(splitter.feed("* c */ 3"));
    assertEquals(List.of("SELECT ';'\n-- a comment; still"), done);
    assertEquals("SELECT /* c */ 3", splitter.remainder());
  }

  @Test
  void aMinusOrSlashThatStartsNoCommentStaysInTheStatement() {
    assertEquals(List.of("SELECT 4-2/1", "SELECT -1"), StatementSplitter.split("SELECT 4-2/1;SELECT -1"));
  }

  @Test
  void completeOnlyWhenEveryStatementEndsOutsideLiteralsAndComments() {
    assertTrue(StatementSplitter.complete("SELECT 1;"));
    assertTrue(StatementSplitter.complete(""));
    assertTrue(StatementSplitter.complete("SELECT 1; -- trailing comment"));
    assertFalse(StatementSplitter.complete("SELECT 1"));
    assertFalse(StatementSplitter.complete("SELECT 'open;"));
    assertFalse(StatementSplitter.complete("SELECT \"open;"));
    assertFalse(StatementSplitter.complete("SELECT 1 /* open; "));
    assertFalse(StatementSplitter.complete("SELECT 1; SELECT 2"));
  }

  @Test
  void anUnclosedLiteralAtTheEndIsSentAsItIsForTheServerToRefuse() {
    assertEquals(List.of("SELECT 'unclosed;"), StatementSplitter.split("SELECT 'unclosed;"));
  }
}
