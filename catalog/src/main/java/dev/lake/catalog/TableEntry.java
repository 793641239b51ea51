package dev.lake.catalog;

import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The registry's record of one table: which incarnation it is (a new one on every re-create), the
 * engine and location of its files, the latest version readers may see, and its schema.
 */
public record TableEntry(
    TableIdent ident,
    UUID incarnation,
    String engine,
    TableLocation location,
    Version version,
    Schema schema,
    Instant createdAt) {

  public TableEntry {
    Objects.requireNonNull(ident, "ident");
    Objects.requireNonNull(incarnation, "incarnation");
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  TableEntry withVersion(Version newVersion) {
    return new TableEntry(ident, incarnation, engine, location, newVersion, schema, createdAt);
  }
}
