package dev.lake.engine.log.commit;

/** A segment file named by a commit entry: file name under {@code data/}, rows and exact size. */
public record SegmentRef(String file, long rows, long bytes) {
  public SegmentRef {
    if (file == null || !file.matches("[0-9a-f-]{36}\\.seg")) {
      throw new IllegalArgumentException("invalid segment file name: " + file);
    }
    if (rows <= 0 || bytes <= 0) {
      throw new IllegalArgumentException("invalid segment size: rows=" + rows + " bytes=" + bytes);
    }
  }
}
