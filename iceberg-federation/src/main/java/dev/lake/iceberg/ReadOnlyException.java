package dev.lake.iceberg;

import dev.lake.engine.EngineException;
import dev.lake.engine.TableLocation;

/** A write was asked of the read-only {@code iceberg} catalog; nothing was changed. */
public final class ReadOnlyException extends EngineException {
  private static final long serialVersionUID = 1L;

  ReadOnlyException(TableLocation location, String what) {
    super(location, "catalog " + IcebergFederation.CATALOG + " is read-only: " + what + " is refused");
  }
}
