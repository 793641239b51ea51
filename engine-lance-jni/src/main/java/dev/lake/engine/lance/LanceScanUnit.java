package dev.lake.engine.lance;

import dev.lake.engine.ScanUnit;

/** One Lance fragment of one version: the unit a scan thread reads on its own. */
record LanceScanUnit(long lanceVersion, int fragmentId, long rowCount) implements ScanUnit {

  @Override
  public String describe() {
    return "fragment " + fragmentId + " of lance version " + lanceVersion;
  }
}
