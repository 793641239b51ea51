package dev.lake.engine;

/**
 * A piece of a scan an executor thread can read on its own. Engines subclass or implement it
 * with whatever they need to find the data; callers only pass it back to {@link Snapshot#open}.
 */
public interface ScanUnit {

  /** Upper bound of the rows this unit yields before filtering. */
  long rowCount();

  /** A short human-readable name for plans and errors, for example a segment file name. */
  String describe();
}
