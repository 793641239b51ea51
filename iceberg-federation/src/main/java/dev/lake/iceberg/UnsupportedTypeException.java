package dev.lake.iceberg;

import dev.lake.engine.EngineException;

/** A column has an Iceberg type lake does not read yet (nanosecond timestamps, variant, geometry). */
public final class UnsupportedTypeException extends EngineException {
  private static final long serialVersionUID = 1L;

  UnsupportedTypeException(org.apache.iceberg.types.Type type) {
    super(null, "the Iceberg type " + type + " is not supported by lake yet");
  }
}
