package dev.lake.cli.sql;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes one query result as it streams: its schema, then each batch, then the end. A printer
 * holds no Arrow buffer: it reads each batch during {@link #rows} and keeps at most text.
 */
public interface ResultPrinter {

  /** Called once, before any rows. */
  void begin(Schema schema);

  /** One batch; its vectors are valid only during the call. */
  void rows(VectorSchemaRoot batch);

  /** After the last batch: writes what is still held and flushes. */
  void end();
}
