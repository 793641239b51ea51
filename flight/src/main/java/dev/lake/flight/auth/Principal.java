package dev.lake.flight.auth;

import java.util.Objects;
import java.util.Set;

/**
 * Who is calling, resolved once per call by the server's authenticator and bound into every
 * ticket and handle issued to that call. {@code namespaceGrants} holds the namespaces (schemas of
 * catalog {@code lake}) the principal may read; {@code "*"} grants every namespace. Writes need
 * role {@link Role#WRITER} or {@link Role#ADMIN} as well as the grant.
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

  /** The grant that covers every namespace. */
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

  /** Whether this principal may change tables of {@code namespace}. */
  public boolean mayWrite(String namespace) {
    return role != Role.READER && mayRead(namespace);
  }
}
