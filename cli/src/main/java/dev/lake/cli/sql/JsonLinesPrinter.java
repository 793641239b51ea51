package dev.lake.cli.sql;

import java.io.PrintWriter;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * JSON lines: one JSON object per row, keyed by column name in column order, nothing else.
 * Numbers are JSON numbers (decimals exact, 64-bit integers whole), NaN and the infinities
 * strings, NULL {@code null}, binary base64, dates and timestamps ISO strings, lists arrays and
 * structs and maps objects. Each batch is written as it arrives.
 */
final class JsonLinesPrinter implements ResultPrinter {

  private final PrintWriter out;
  private final StringBuilder line = new StringBuilder();
  private String[] keys;

  JsonLinesPrinter(PrintWriter out) {
    this.out = out;
  }

  @Override
  public void begin(Schema schema) {
    List<Field> fields = schema.getFields();
    keys = new String[fields.size()];
    for (int c = 0; c < keys.length; c++) {
      StringBuilder key = new StringBuilder();
      CellText.string(fields.get(c).getName(), key);
      keys[c] = key.append(':').toString();
    }
  }

  @Override
  public void rows(VectorSchemaRoot batch) {
    for (int r = 0; r < batch.getRowCount(); r++) {
      line.setLength(0);
      line.append('{');
      for (int c = 0; c < keys.length; c++) {
        if (c > 0) {
          line.append(',');
        }
        line.append(keys[c]);
        CellText.json(Values.of(batch.getVector(c), r), line, false);
      }
      out.print(line.append("}\n"));
    }
    out.flush();
  }

  @Override
  public void end() {
    out.flush();
  }
}
