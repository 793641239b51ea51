package dev.lake.sql.slt;

import dev.lake.sql.slt.SltRecord.Condition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parsed sqllogictest script in the classic format of SQLite's corpus
 * (https://www.sqlite.org/sqllogictest/doc/trunk/about.wiki): records separated by blank lines,
 * {@code #} comment lines, each record optionally preceded by {@code skipif <db>} / {@code onlyif
 * <db>} lines. Lines may end in CRLF (some corpus files do).
 */
public record SltScript(String name, List<SltRecord> records) {

  private static final Pattern HASH = Pattern.compile("(\\d+) values hashing to ([0-9a-f]{32})");
  private static final Pattern TYPES = Pattern.compile("[IRT]+");

  /** A script that does not follow the format, with the file and line it went wrong on. */
  public static final class FormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    FormatException(String name, int line, String problem) {
      super(name + ":" + line + ": " + problem);
    }
  }

  /**
   * @throws IOException if the file cannot be read
   * @throws FormatException if it is not a sqllogictest script
   */
  public static SltScript read(Path file, String name) throws IOException {
    return parse(name, new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
  }

  /** @throws FormatException naming the line of the first record that does not parse */
  public static SltScript parse(String name, String text) {
    String[] lines = text.split("\r?\n", -1);
    List<SltRecord> records = new ArrayList<>();
    int i = 0;
    while (i < lines.length) {
      // One block: the non-blank lines up to the next blank line, comments left out.
      List<String> block = new ArrayList<>();
      List<Integer> numbers = new ArrayList<>();
      while (i < lines.length && lines[i].isBlank()) {
        i++;
      }
      while (i < lines.length && !lines[i].isBlank()) {
        if (!lines[i].startsWith("#")) {
          block.add(lines[i]);
          numbers.add(i + 1);
        }
        i++;
      }
      if (!block.isEmpty()) {
        records.add(record(name, block, numbers));
      }
    }
    return new SltScript(name, List.copyOf(records));
  }

  private static SltRecord record(String name, List<String> block, List<Integer> numbers) {
    List<Condition> conditions = new ArrayList<>();
    int at = 0;
    while (at < block.size()) {
      String[] words = words(block.get(at));
      if (!words[0].equals("skipif") && !words[0].equals("onlyif")) {
        break;
      }
      if (words.length < 2) {
        throw new FormatException(name, numbers.get(at), words[0] + " without a database name");
      }
      conditions.add(new Condition(words[0].equals("onlyif"), words[1].toLowerCase(Locale.ROOT)));
      at++;
    }
    if (at == block.size()) {
      throw new FormatException(name, numbers.get(at - 1), "skipif/onlyif with no record after it");
    }
    int line = numbers.get(at);
    String[] words = words(block.get(at));
    List<String> body = block.subList(at + 1, block.size());
    List<Condition> cs = List.copyOf(conditions);
    return switch (words[0]) {
      case "statement" -> statement(name, line, cs, words, body);
      case "query" -> query(name, line, cs, words, body);
      case "hash-threshold" -> {
        if (words.length != 2 || !words[1].matches("\\d{1,9}")) {
          throw new FormatException(name, line, "hash-threshold needs one number: " + block.get(at));
        }
        yield new SltRecord.HashThreshold(line, cs, Integer.parseInt(words[1]));
      }
      case "halt" -> new SltRecord.Halt(line, cs);
      default -> throw new FormatException(name, line, "unknown record '" + words[0] + "'");
    };
  }

  private static SltRecord statement(String name, int line, List<Condition> cs, String[] words,
      List<String> body) {
    if (words.length < 2 || !(words[1].equals("ok") || words[1].equals("error"))) {
      throw new FormatException(name, line, "statement must be followed by ok or error");
    }
    if (words.length > 2 && words[1].equals("ok")) {
      throw new FormatException(name, line, "unexpected words after 'statement ok'");
    }
    String sql = sql(name, line, body);
    return new SltRecord.Statement(line, cs, sql, words[1].equals("error"),
        words.length > 2 ? words[2] : null);
  }

  private static SltRecord query(String name, int line, List<Condition> cs, String[] words,
      List<String> body) {
    if (words.length < 2) {
      throw new FormatException(name, line, "query needs its column types (I, R, T)");
    }
    int separator = body.indexOf("----");
    List<String> sqlLines = separator < 0 ? body : body.subList(0, separator);
    String sql = sql(name, line, sqlLines);
    if (words[1].equals("error")) {
      if (separator >= 0) {
        throw new FormatException(name, line, "query error has no result section");
      }
      return new SltRecord.Query(line, cs, sql, "", SltRecord.SortMode.NOSORT, null,
          new SltRecord.Values(List.of()), true, words.length > 2 ? words[2] : null);
    }
    if (!TYPES.matcher(words[1]).matches()) {
      throw new FormatException(name, line, "column types must be letters I, R or T: " + words[1]);
    }
    if (words.length > 4) {
      throw new FormatException(name, line, "query takes types, a sort mode and a label");
    }
    SltRecord.SortMode sort = SltRecord.SortMode.NOSORT;
    if (words.length > 2) {
      sort = switch (words[2]) {
        case "nosort" -> SltRecord.SortMode.NOSORT;
        case "rowsort" -> SltRecord.SortMode.ROWSORT;
        case "valuesort" -> SltRecord.SortMode.VALUESORT;
        default -> throw new FormatException(name, line,
            "sort mode must be nosort, rowsort or valuesort: " + words[2]);
      };
    }
    String label = words.length > 3 ? words[3] : null;
    List<String> result = separator < 0 ? List.of() : body.subList(separator + 1, body.size());
    SltRecord.Expected expected;
    Matcher hash = result.size() == 1 ? HASH.matcher(result.getFirst().strip()) : null;
    if (hash != null && hash.matches()) {
      expected = new SltRecord.Hash(Integer.parseInt(hash.group(1)), hash.group(2));
    } else {
      expected = new SltRecord.Values(List.copyOf(result));
    }
    return new SltRecord.Query(line, cs, sql, words[1], sort, label, expected, false, null);
  }

  private static String sql(String name, int line, List<String> lines) {
    String sql = String.join("\n", lines).strip();
    if (sql.isEmpty()) {
      throw new FormatException(name, line, "record has no SQL");
    }
    return sql;
  }

  private static String[] words(String line) {
    String content = line.strip();
    int comment = content.indexOf(" #");
    if (comment >= 0) {
      content = content.substring(0, comment);
    }
    return content.strip().split("\\s+");
  }
}
