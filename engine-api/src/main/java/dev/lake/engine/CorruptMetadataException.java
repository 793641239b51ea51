package dev.lake.engine;

/**
 * A metadata file of a table (a commit log entry, a checkpoint) is damaged or missing: it fails
 * its checksum, is truncated, cannot be decoded, records another version, or a version's file is
 * absent between others. Carries what a user needs to report it — the kind of file, its name
 * relative to the table's location (never a file-system root), the version it holds when known,
 * and what is wrong — so the edge can answer {@code DATA_LOSS} without showing the server's
 * paths. {@link #getMessage()} also names the location, for the server log.
 *
 * <p>The engine does not know the table's name; the catalog adds it with {@link
 * #inTable(String)}. Nothing was changed by the read; retrying reads the same damaged file.
 */
public final class CorruptMetadataException extends CorruptTableException {
  private static final long serialVersionUID = 1L;

  private final String kind;
  private final String file;
  private final Version version;
  private final String problem;
  private final String table;

  /**
   * @param kind what the file is, such as {@code commit log entry} or {@code checkpoint}
   * @param file the file, relative to the table's location ({@code _log/00000000000000000003.json})
   * @param version the version the file holds, or null when unknown
   * @param problem what is wrong, in words that contain no path ("fails its checksum")
   */
  public CorruptMetadataException(TableLocation location, String kind, String file,
      Version version, String problem, Throwable cause) {
    this(location, kind, file, version, problem, null, cause);
  }

  private CorruptMetadataException(TableLocation location, String kind, String file,
      Version version, String problem, String table, Throwable cause) {
    super(location, describe(table, kind, file, version, problem), cause);
    this.kind = kind;
    this.file = file;
    this.version = version;
    this.problem = problem;
    this.table = table;
  }

  /** The same damage, naming the table (a qualified name such as {@code lake.demo.episodes}). */
  public CorruptMetadataException inTable(String tableName) {
    CorruptMetadataException named = new CorruptMetadataException(location(), kind, file, version,
        problem, tableName, getCause());
    named.setStackTrace(getStackTrace());
    return named;
  }

  /** The qualified table name, or null when not yet known. */
  public String table() {
    return table;
  }

  /**
   * What is damaged, without the table's location: table (when known), the file's kind, name
   * and version, and the problem. Safe to show to a client.
   */
  public String describe() {
    return describe(table, kind, file, version, problem);
  }

  private static String describe(String table, String kind, String file, Version version,
      String problem) {
    StringBuilder s = new StringBuilder();
    if (table != null) {
      s.append("table ").append(table).append(": ");
    }
    s.append(kind);
    if (version != null) {
      s.append(" of version ").append(version);
    }
    return s.append(' ').append(file).append(' ').append(problem).toString();
  }
}
