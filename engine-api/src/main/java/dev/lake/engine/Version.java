package dev.lake.engine;

/** A table version number. Versions of a table are contiguous, starting at {@link #INITIAL}. */
public record Version(long number) implements Comparable<Version> {

  /** The version a table has right after create: its schema and no rows. */
  public static final Version INITIAL = new Version(0);

  public Version {
    if (number < 0) {
      throw new IllegalArgumentException("version must be >= 0, got " + number);
    }
  }

  public static Version of(long number) {
    return new Version(number);
  }

  public Version next() {
    return new Version(Math.addExact(number, 1));
  }

  @Override
  public int compareTo(Version other) {
    return Long.compare(number, other.number);
  }

  @Override
  public String toString() {
    return Long.toString(number);
  }
}
