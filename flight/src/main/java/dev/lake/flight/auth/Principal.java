package dev.lake.flight.auth;

import java.util.Objects;
import java.util.Set;

/**
 * Who is calling, resolved once per call by the server's authenticator and bound into every
 * ticket and handle issued to that call. {@code namespaceGrants} holds what the principal may
 * read: a namespace of catalog {@code lake} by its name ({@code "robots"}), every namespace of
 * {@code lake} by {@code "*"}, a namespace of a read-only federated catalog by its qualified name
 * ({@code "iceberg.ops"}) and every namespace of one by {@code "iceberg.*"}; {@code "*"} does not
 * reach federated catalogs. Writes need role {@link Role#WRITER} or {@link Role#ADMIN} as well as
 * the grant. An ADMIN reads everything.
 */
public record Principal(String name, String tenant, Role role, Set<String> namespaceGrants) {

  /** What a principal may do within its grants. */
  public enum Role {
    /** Reads granted namespaces. */
    READER,
    /** Reads and appends to, creates and drops tables in, granted namespaces. */
    WRITER,
    /** Everything, in every namespace, including namespace DDL. */
    ADMIN
  }

  private static final String LAKE = "lake";

  /** The grant that covers every namespace of catalog {@code lake}. */
  public static final String ALL_NAMESPACES = "*";

  /**
   * The caller of a server that authenticates nobody (loopback dev mode): an administrator of
   * tenant {@code default}.
   */
  public static final Principal ANONYMOUS =
      new Principal("anonymous", "default", Role.ADMIN, Set.of(ALL_NAMESPACES));

  public Principal {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(role, "role");
    namespaceGrants = Set.copyOf(namespaceGrants);
    if (name.isBlank() || tenant.isBlank()) {
      throw new IllegalArgumentException("principal name and tenant must not be blank");
    }
  }

  /** Whether this principal may read tables of {@code namespace}. */
  public boolean mayRead(String namespace) {
    return role == Role.ADMIN || namespaceGrants.contains(ALL_NAMESPACES)
        || namespaceGrants.contains(namespace);
  }

  /**
   * Whether this principal may read tables of {@code namespace} in catalog {@code catalog}
   * ({@code lake} or a federated one).
   */
  public boolean mayRead(String catalog, String namespace) {
    if (LAKE.equals(catalog)) {
      return mayRead(namespace);
    }
    return role == Role.ADMIN || namespaceGrants.contains(catalog + ".*")
        || namespaceGrants.contains(catalog + "." + namespace);
  }

  /** Whether this principal may read some namespace of the federated catalog {@code catalog}. */
  public boolean maySee(String catalog) {
    if (LAKE.equals(catalog) || role == Role.ADMIN) {
      return true;
    }
    String prefix = catalog + ".";
    return namespaceGrants.stream().anyMatch(grant -> grant.startsWith(prefix));
  }

  /** Whether this principal may change tables of {@code namespace}. */
  public boolean mayWrite(String namespace) {
    return role != Role.READER && mayRead(namespace);
  }
}
