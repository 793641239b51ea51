package dev.lake.metastore;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A page of a prefix scan: entries in ascending key order, and an opaque token for the next page
 * (empty when the scan is complete).
 */
public record ScanPage(List<Entry> entries, Optional<String> continuation) {

  public ScanPage {
    entries = List.copyOf(entries);
    Objects.requireNonNull(continuation, "continuation");
  }

  /** One key and its value. */
  public record Entry(String key, byte[] value) {
    public Entry {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
    }
  }
}
