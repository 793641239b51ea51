package dev.lake.engine;

/**
 * The engine does not implement the asked capability (maintenance, say). Nothing was changed;
 * retrying on the same engine fails again.
 */
public final class CapabilityNotSupportedException extends EngineException {
  private static final long serialVersionUID = 1L;

  private final String engine;
  private final String capability;

  public CapabilityNotSupportedException(TableLocation location, String engine, String capability) {
    super(location, "the " + engine + " engine does not support " + capability);
    this.engine = engine;
    this.capability = capability;
  }

  public String engine() {
    return engine;
  }

  public String capability() {
    return capability;
  }
}
