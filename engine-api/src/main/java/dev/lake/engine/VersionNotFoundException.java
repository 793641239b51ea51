package dev.lake.engine;

/**
 * A version that was never committed, or is no longer readable, was asked for. {@link #expired()}
 * tells the two apart: an expired version existed and was removed by a retention policy.
 */
public final class VersionNotFoundException extends EngineException {
  private static final long serialVersionUID = 1L;

  private final Version version;
  private final boolean expired;

  public VersionNotFoundException(TableLocation location, Version version, String why) {
    this(location, version, why, false);
  }

  private VersionNotFoundException(TableLocation location, Version version, String why, boolean expired) {
    super(location, "version " + version + " " + why);
    this.version = version;
    this.expired = expired;
  }

  /** The version is beyond the latest one committed. */
  public static VersionNotFoundException neverCommitted(TableLocation location, Version version, Version latest) {
    return new VersionNotFoundException(location, version, "was never committed (latest is " + latest + ")", false);
  }

  /** The version was committed once and has since been expired by the retention policy. */
  public static VersionNotFoundException expired(TableLocation location, Version version, Version oldestRetained) {
    return new VersionNotFoundException(location, version,
        "was expired by retention (the oldest retained version is " + oldestRetained + ")", true);
  }

  public Version version() {
    return version;
  }

  /** Whether the version existed and was removed by retention, rather than never committed. */
  public boolean expired() {
    return expired;
  }
}
