package dev.lake.catalog;

import dev.lake.engine.TableLocation;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.UUID;

/**
 * Where the registry puts the files of the tables it creates: a local directory or an S3
 * bucket and prefix. The server decides every table's location, never the caller: table
 * {@code ns.name} of incarnation {@code i} lives at {@code <root>/<ns>/<name>-<i>}, so a table
 * created again under the same name never shares a file with its predecessor. Immutable.
 */
public final class Placement {

  private final URI root;

  private Placement(URI root) {
    this.root = root;
  }

  /** Tables under the local directory {@code root} (made absolute). */
  public static Placement local(Path root) {
    return new Placement(root.toAbsolutePath().normalize().toUri());
  }

  /**
   * Tables under {@code root}: a {@code file:} URI, or {@code s3://bucket/prefix} (the prefix may
   * be empty).
   *
   * @throws IllegalArgumentException if the URI is neither, or an S3 URI has no bucket, a query
   *     or a fragment
   */
  public static Placement of(URI root) {
    Objects.requireNonNull(root, "root");
    String scheme = root.getScheme();
    if ("file".equals(scheme)) {
      return local(Path.of(root));
    }
    if (!"s3".equals(scheme)) {
      throw new IllegalArgumentException("a warehouse is a local directory, a file: URI or "
          + "s3://bucket/prefix, got " + root);
    }
    if (root.getAuthority() == null || root.getAuthority().isEmpty()) {
      throw new IllegalArgumentException("an s3 warehouse needs a bucket: s3://bucket/prefix, got " + root);
    }
    if (root.getQuery() != null || root.getFragment() != null) {
      throw new IllegalArgumentException("an s3 warehouse has no query or fragment, got " + root);
    }
    String path = root.getPath() == null ? "" : root.getPath().replaceAll("/+$", "");
    return new Placement(URI.create("s3://" + root.getAuthority() + path));
  }

  /** {@link #of(URI)} for a text that is a URI with a scheme, else {@link #local} of a path. */
  public static Placement parse(String warehouse) {
    Objects.requireNonNull(warehouse, "warehouse");
    if (warehouse.matches("[a-zA-Z][a-zA-Z0-9+.-]*://.*") || warehouse.startsWith("file:")) {
      URI uri;
      try {
        uri = new URI(warehouse);
      } catch (URISyntaxException e) {
        if (warehouse.regionMatches(true, 0, "s3://", 0, 5)) {
          throw new IllegalArgumentException("an s3 warehouse needs a bucket: s3://bucket/prefix,"
              + " got '" + warehouse + "' (" + e.getReason() + ")");
        }
        throw new IllegalArgumentException("a warehouse is a local directory, a file: URI or "
            + "s3://bucket/prefix, got '" + warehouse + "' (" + e.getReason() + ")");
      }
      return of(uri);
    }
    return local(Path.of(warehouse));
  }

  /** The root every table location is under. */
  public URI root() {
    return root;
  }

  public boolean isLocal() {
    return "file".equals(root.getScheme());
  }

  /** The location of incarnation {@code incarnation} of table {@code ident}. */
  public TableLocation location(TableIdent ident, UUID incarnation) {
    if (isLocal()) {
      return TableLocation.of(Path.of(root).resolve(ident.namespace())
          .resolve(ident.name() + "-" + incarnation));
    }
    return new TableLocation(URI.create(root + "/" + ident.namespace() + "/" + ident.name() + "-"
        + incarnation));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Placement p && p.root.equals(root);
  }

  @Override
  public int hashCode() {
    return root.hashCode();
  }

  @Override
  public String toString() {
    return root.toString();
  }
}
