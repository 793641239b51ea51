package dev.lake.engine;

import java.time.Duration;
import java.util.Objects;

/**
 * What {@link TableEngine#maintain} may do to a table. Immutable; validated on construction.
 *
 * <ul>
 *   <li>Compaction: when at least {@code minSmallSegments} live data files are smaller than
 *       {@code compactionTargetBytes}, they are rewritten into files of about that size, as one
 *       new version holding exactly the same rows. {@code minSmallSegments == 0} disables it.
 *   <li>Expiry: a version stays readable while it is among the newest {@code retainVersions}
 *       versions <em>or</em> younger than {@code retainAge}; the latest version is always kept.
 *       Older versions become unreadable, then every file no retained version references is
 *       deleted. {@code retainVersions == 0} disables expiry.
 * </ul>
 *
 * @param compactionTargetBytes size a compacted data file aims at, and below which a file counts
 *     as small; at least 1
 * @param minSmallSegments how many small files it takes to compact; 0 disables compaction, 1 is
 *     refused (rewriting one file into one file gains nothing)
 * @param retainVersions how many of the newest versions are kept regardless of age; 0 disables
 *     expiry
 * @param retainAge versions committed more recently than this are kept; not negative
 */
public record MaintenancePolicy(
    long compactionTargetBytes, int minSmallSegments, int retainVersions, Duration retainAge) {

  public MaintenancePolicy {
    Objects.requireNonNull(retainAge, "retainAge");
    if (compactionTargetBytes < 1) {
      throw new IllegalArgumentException("compactionTargetBytes must be >= 1, got " + compactionTargetBytes);
    }
    if (minSmallSegments < 0 || minSmallSegments == 1) {
      throw new IllegalArgumentException("minSmallSegments must be 0 (off) or >= 2, got " + minSmallSegments);
    }
    if (retainVersions < 0) {
      throw new IllegalArgumentException("retainVersions must be >= 0, got " + retainVersions);
    }
    if (retainAge.isNegative()) {
      throw new IllegalArgumentException("retainAge must not be negative, got " + retainAge);
    }
  }

  /** Compaction only: no version expires. */
  public static MaintenancePolicy compactOnly(long targetBytes, int minSmallSegments) {
    return new MaintenancePolicy(targetBytes, minSmallSegments, 0, Duration.ZERO);
  }

  /** Expiry only: no file is rewritten. */
  public static MaintenancePolicy expireOnly(int retainVersions, Duration retainAge) {
    return new MaintenancePolicy(1, 0, retainVersions, retainAge);
  }

  public boolean compacts() {
    return minSmallSegments > 0;
  }

  public boolean expires() {
    return retainVersions > 0;
  }
}
