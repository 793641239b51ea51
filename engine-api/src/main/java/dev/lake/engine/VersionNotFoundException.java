package dev.lake.engine;

/** A version that was never committed, or is no longer readable, was asked for. */
public final class VersionNotFoundException extends EngineException {
  private static final long serialVersionUID = 1L;

  private final Version version;

  public VersionNotFoundException(TableLocation location, Version version, String why) {
    super(location, "version " + version + " " + why);
    this.version = version;
  }

  public Version version() {
    return version;
  }
}
