package dev.lake.cli.sql;

import java.io.PrintWriter;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * CSV with a header line, quoted as RFC 4180 says: a field holding a comma, a double quote, a
 * carriage return or a line feed is put in double quotes, and a double quote inside it is
 * doubled. SQL NULL is an empty field and the empty string a quoted empty field ({@code ""}), so
 * the two stay apart. Lines end with a line feed; each batch is written as it arrives.
 */
final class CsvPrinter implements ResultPrinter {

  private final PrintWriter out;
  private final StringBuilder line = new StringBuilder();

  CsvPrinter(PrintWriter out) {
    this.out = out;
  }

  @Override
  public void begin(Schema schema) {
    line.setLength(0);
    for (int c = 0; c < schema.getFields().size(); c++) {
      if (c > 0) {
        line.append(',');
      }
      field(schema.getFields().get(c).getName(), line);
    }
    out.print(line.append('\n'));
  }

  @Override
  public void rows(VectorSchemaRoot batch) {
    int columns = batch.getFieldVectors().size();
    for (int r = 0; r < batch.getRowCount(); r++) {
      line.setLength(0);
      for (int c = 0; c < columns; c++) {
        if (c > 0) {
          line.append(',');
        }
        String text = CellText.plain(Values.of(batch.getVector(c), r));
        if (text != null) {
          field(text, line);
        }
      }
      out.print(line.append('\n'));
    }
    out.flush();
  }

  @Override
  public void end() {
    out.flush();
  }

  static void field(String text, StringBuilder out) {
    boolean quote = text.isEmpty();
    for (int i = 0; i < text.length() && !quote; i++) {
      char ch = text.charAt(i);
      quote = ch == ',' || ch == '"' || ch == '\r' || ch == '\n';
    }
    if (!quote) {
      out.append(text);
      return;
    }
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char ch = text.charAt(i);
      out.append(ch);
      if (ch == '"') {
        out.append('"');
      }
    }
    out.append('"');
  }
}
