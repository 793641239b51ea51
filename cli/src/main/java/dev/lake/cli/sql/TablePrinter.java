package dev.lake.cli.sql;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An aligned table in the manner of psql: a header, a separator line, one line per row; numbers
 * right-aligned, everything else left-aligned, SQL NULL shown as {@code NULL}; long values are
 * never wrapped or cut, and line breaks, tabs and other control characters inside a value are
 * shown escaped ({@code \n}) so that each row stays on one line.
 *
 * <p>Rows are held in blocks of {@code blockRows} to measure the columns, so memory stays
 * bounded on any result: a column's width is the widest value seen so far, and a wider value in
 * a later block widens the lines from there on.
 */
final class TablePrinter implements ResultPrinter {

  static final String NULL = "NULL";
  static final int DEFAULT_BLOCK_ROWS = 1_000;

  private final PrintWriter out;
  private final int blockRows;
  private final List<String[]> block = new ArrayList<>();
  private String[] names;
  private boolean[] rightAligned;
  private int[] widths;
  private boolean headerWritten;

  TablePrinter(PrintWriter out) {
    this(out, DEFAULT_BLOCK_ROWS);
  }

  TablePrinter(PrintWriter out, int blockRows) {
    this.out = out;
    this.blockRows = blockRows;
  }

  @Override
  public void begin(Schema schema) {
    List<Field> fields = schema.getFields();
    names = new String[fields.size()];
    rightAligned = new boolean[fields.size()];
    widths = new int[fields.size()];
    for (int c = 0; c < names.length; c++) {
      names[c] = escape(fields.get(c).getName());
      rightAligned[c] = isNumber(fields.get(c).getType());
      widths[c] = DisplayWidth.of(names[c]);
    }
  }

  @Override
  public void rows(VectorSchemaRoot batch) {
    int columns = names.length;
    for (int r = 0; r < batch.getRowCount(); r++) {
      String[] cells = new String[columns];
      for (int c = 0; c < columns; c++) {
        String text = CellText.plain(Values.of(batch.getVector(c), r));
        cells[c] = text == null ? NULL : escape(text);
      }
      block.add(cells);
      if (block.size() >= blockRows) {
        flushBlock();
      }
    }
  }

  @Override
  public void end() {
    flushBlock();
    out.flush();
  }

  private void flushBlock() {
    for (String[] cells : block) {
      for (int c = 0; c < cells.length; c++) {
        widths[c] = Math.max(widths[c], DisplayWidth.of(cells[c]));
      }
    }
    if (!headerWritten) {
      line(names);
      StringBuilder rule = new StringBuilder();
      for (int c = 0; c < widths.length; c++) {
        rule.append(c == 0 ? "" : "+").append("-".repeat(widths[c] + 2));
      }
      out.println(rule);
      headerWritten = true;
    }
    for (String[] cells : block) {
      line(cells);
    }
    block.clear();
  }

  private void line(String[] cells) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < cells.length; c++) {
      String cell = cells[c];
      String pad = " ".repeat(Math.max(0, widths[c] - DisplayWidth.of(cell)));
      line.append(c == 0 ? " " : " | ");
      if (rightAligned[c]) {
        line.append(pad).append(cell);
      } else {
        line.append(cell);
        if (c < cells.length - 1) {
          line.append(pad);
        }
      }
    }
    out.println(line);
  }

  private static boolean isNumber(ArrowType type) {
    return type instanceof ArrowType.Int || type instanceof ArrowType.FloatingPoint
        || type instanceof ArrowType.Decimal;
  }

  /** Control characters as escapes, so that a value never breaks or garbles its line. */
  static String escape(String text) {
    StringBuilder escaped = null;
    for (int i = 0; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (!Character.isISOControl(ch)) {
        if (escaped != null) {
          escaped.append(ch);
        }
        continue;
      }
      if (escaped == null) {
        escaped = new StringBuilder(text.length() + 8).append(text, 0, i);
      }
      switch (ch) {
        case '\n' -> escaped.append("\\n");
        case '\r' -> escaped.append("\\r");
        case '\t' -> escaped.append("\\t");
        default -> escaped.append(String.format("\\u%04x", (int) ch));
      }
    }
    return escaped == null ? text : escaped.toString();
  }
}
