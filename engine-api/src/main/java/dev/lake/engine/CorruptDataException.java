package dev.lake.engine;

/**
 * A data file (segment) of a table is damaged: it fails a checksum, is truncated or missing,
 * or its structure is inconsistent. Carries what a user needs to report it — the version read,
 * the segment's file name relative to the table's location (never a file-system root), and the
 * block and column when the damage is inside one — so the edge can answer {@code DATA_LOSS}
 * without showing the server's paths. {@link #getMessage()} also names the location, for the
 * server log.
 *
 * <p>The engine does not know the table's name; the executor adds it with {@link
 * #inTable(String)} when it knows which table it was scanning. Nothing was changed by the read;
 * retrying reads the same damaged bytes.
 */
public final class CorruptDataException extends CorruptTableException {
  private static final long serialVersionUID = 1L;

  private final Version version;
  private final String segment;
  private final int block;
  private final String column;
  private final String problem;
  private final String table;

  /**
   * @param version the version being read
   * @param segment the damaged segment's file, relative to the table's location ({@code
   *     data/x.seg})
   * @param block the block within the segment, or -1 when the damage is not in one block
   * @param column the column whose bytes are damaged, or null when not one column's
   * @param problem what is wrong, in words that contain no path ("fails its checksum")
   */
  public CorruptDataException(TableLocation location, Version version, String segment,
      int block, String column, String problem, Throwable cause) {
    this(location, version, segment, block, column, problem, null, cause);
  }

  private CorruptDataException(TableLocation location, Version version, String segment,
      int block, String column, String problem, String table, Throwable cause) {
    super(location, describe(table, version, segment, block, column, problem), cause);
    this.version = version;
    this.segment = segment;
    this.block = block;
    this.column = column;
    this.problem = problem;
    this.table = table;
  }

  /** The same damage, naming the table (a qualified name such as {@code lake.demo.episodes}). */
  public CorruptDataException inTable(String tableName) {
    CorruptDataException named = new CorruptDataException(location(), version, segment, block,
        column, problem, tableName, getCause());
    named.setStackTrace(getStackTrace());
    return named;
  }

  /**
   * What is damaged, without the table's location: table (when known), version, segment, block,
   * column and the problem. Safe to show to a client.
   */
  public String describe() {
    return describe(table, version, segment, block, column, problem);
  }

  private static String describe(String table, Version version, String segment, int block,
      String column, String problem) {
    StringBuilder s = new StringBuilder();
    if (table != null) {
      s.append("table ").append(table).append(' ');
    }
    s.append("version ").append(version).append(": segment ").append(segment);
    if (block >= 0) {
      s.append(" block ").append(block);
    }
    if (column != null) {
      s.append(" column '").append(column).append('\'');
    }
    return s.append(' ').append(problem).toString();
  }

  public Version version() {
    return version;
  }

  /** The damaged segment, relative to the table's location. */
  public String segment() {
    return segment;
  }

  /** The damaged block within {@link #segment()}, or -1. */
  public int block() {
    return block;
  }

  /** The damaged column, or null. */
  public String column() {
    return column;
  }

  /** The table's qualified name, or null when the engine reported it without one. */
  public String table() {
    return table;
  }
}
