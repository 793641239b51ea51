package dev.lake.flight.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Resolves a call's credentials to a {@link Principal}, from a principals file (JSON, see
 * docs/security.md):
 *
 * <pre>{@code
 * {"handshake_secret": "<base64, >= 32 bytes; optional, shared by replicas>",
 *  "handshake_token_ttl_seconds": 3600,
 *  "principals": [
 *    {"name": "admin", "tenant": "ops", "role": "ADMIN", "namespaces": ["*"],
 *     "token_sha256": ["<hex SHA-256 of a bearer token>"],
 *     "password": "pbkdf2-sha256$120000$<salt>$<hash>"}]}
 * }</pre>
 *
 * Only hashes are stored; tokens are compared in constant time against every entry. A basic-auth
 * Handshake checks the password and answers a short-lived HMAC-signed bearer token. Immutable and
 * thread-safe.
 */
public final class Authenticator {

  private record Entry(Principal principal, List<byte[]> tokenHashes, String passwordHash) {}

  /** The cookie that carries a call's authentication for clients that replay cookies. */
  public static final String AUTH_COOKIE = "lake_auth";

  private static final Duration DEFAULT_TTL = Duration.ofHours(1);
  /** Compared against when a user is unknown, so a wrong name costs what a wrong password does. */
  private static final String DUMMY_PASSWORD = Secrets.passwordHash("", Secrets.PASSWORD_ITERATIONS);

  private final Map<String, Entry> byName;
  private final HandshakeTokens handshakeTokens;

  private Authenticator(Map<String, Entry> byName, HandshakeTokens handshakeTokens) {
    this.byName = byName;
    this.handshakeTokens = handshakeTokens;
  }

  /** As {@link #load(Path, Clock)} with the system clock. */
  public static Authenticator load(Path file) {
    return load(file, Clock.systemUTC());
  }

  /**
   * Reads a principals file.
   *
   * @param clock decides the expiry of handshake tokens
   * @throws IllegalArgumentException naming the file and the field when it cannot be read, is not
   *     JSON, or an entry is incomplete, duplicated or malformed
   */
  public static Authenticator load(Path file, Clock clock) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the principals file " + file + ": "
          + e.getMessage(), e);
    }
    try {
      return parse(root, clock);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("principals file " + file + ": " + e.getMessage(), e);
    }
  }

  private static Authenticator parse(JsonNode root, Clock clock) {
    if (root == null || !root.isObject() || !root.path("principals").isArray()) {
      throw new IllegalArgumentException("expected an object with an array 'principals'");
    }
    Map<String, Entry> byName = new LinkedHashMap<>();
    int index = 0;
    for (JsonNode node : root.get("principals")) {
      String where = "principals[" + index++ + "]";
      String name = text(node, "name", where);
      Principal.Role role;
      try {
        role = Principal.Role.valueOf(text(node, "role", where).toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + ".role must be READER, WRITER or ADMIN");
      }
      Set<String> grants = new LinkedHashSet<>();
      node.path("namespaces").forEach(grant -> grants.add(grant.asText()));
      Principal principal = new Principal(name, text(node, "tenant", where), role, grants);
      List<byte[]> hashes = new ArrayList<>();
      JsonNode tokens = node.path("token_sha256");
      for (JsonNode token : tokens.isArray() ? tokens : List.of(tokens)) {
        if (token.isMissingNode()) {
          continue;
        }
        try {
          byte[] hash = HexFormat.of().parseHex(token.asText());
          if (hash.length != 32) {
            throw new IllegalArgumentException();
          }
          hashes.add(hash);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(where + ".token_sha256 must hold 64 hex digits");
        }
      }
      String password = node.hasNonNull("password") ? node.get("password").asText() : null;
      if (password != null) {
        Secrets.PasswordHash.parse(password);
      }
      if (hashes.isEmpty() && password == null) {
        throw new IllegalArgumentException(where + " ('" + name
            + "') has neither token_sha256 nor password");
      }
      if (byName.put(name, new Entry(principal, List.copyOf(hashes), password)) != null) {
        throw new IllegalArgumentException("principal '" + name + "' is listed twice");
      }
    }
    byte[] key;
    if (root.hasNonNull("handshake_secret")) {
      try {
        key = Base64.getDecoder().decode(root.get("handshake_secret").asText());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("handshake_secret must be base64");
      }
    } else {
      key = new byte[32];
      new SecureRandom().nextBytes(key);
    }
    Duration ttl = root.has("handshake_token_ttl_seconds")
        ? Duration.ofSeconds(root.get("handshake_token_ttl_seconds").asLong()) : DEFAULT_TTL;
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("handshake_token_ttl_seconds must be > 0");
    }
    return new Authenticator(Map.copyOf(byName), new HandshakeTokens(key, ttl, clock));
  }

  private static String text(JsonNode node, String field, String where) {
    JsonNode value = node.get(field);
    if (value == null || !value.isTextual() || value.asText().isBlank()) {
      throw new IllegalArgumentException(where + "." + field + " is missing");
    }
    return value.asText();
  }

  /**
   * The principal an {@code authorization} header value ({@code Bearer <token>}) names.
   *
   * @param authorization the header's value, or null when the call carried none
   * @throws AuthenticationException when absent, not a bearer token, unknown or expired
   */
  public Principal authenticate(String authorization) {
    if (authorization == null || authorization.isBlank()) {
      throw new AuthenticationException("no credentials: send 'authorization: Bearer <token>'"
          + " or authenticate with a basic-auth Handshake first");
    }
    if (!authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      throw new AuthenticationException("the authorization header must be 'Bearer <token>'"
          + " (basic credentials are accepted by the Handshake only)");
    }
    return bearer(authorization.substring(7).trim());
  }

  /**
   * The principal a call runs as: its {@code authorization} header when it has one, else its
   * {@value #AUTH_COOKIE} cookie (see {@link #sessionCookie}). A wrong header is refused even
   * beside a good cookie.
   *
   * @param cookies the values of the call's {@code cookie} headers
   * @throws AuthenticationException when the call has neither, or what it has is not valid
   */
  public Principal authenticate(String authorization, List<String> cookies) {
    if (authorization != null && !authorization.isBlank()) {
      return authenticate(authorization);
    }
    String cookie = Cookies.value(cookies, AUTH_COOKIE);
    if (cookie == null || cookie.isEmpty()) {
      return authenticate(authorization);
    }
    Optional<HandshakeTokens.Issued> issued = handshakeTokens.read(cookie);
    if (issued.isEmpty()) {
      throw new AuthenticationException("the " + AUTH_COOKIE + " cookie is not valid (another"
          + " deployment's, or altered): send the bearer token again");
    }
    if (handshakeTokens.expiresWithin(issued.get(), Duration.ZERO)) {
      throw new AuthenticationException("the " + AUTH_COOKIE + " cookie has expired: send the"
          + " bearer token again");
    }
    Entry entry = byName.get(issued.get().name());
    if (entry == null) {
      throw new AuthenticationException("the " + AUTH_COOKIE + " cookie's principal no longer"
          + " exists");
    }
    return entry.principal();
  }

  /**
   * The {@code set-cookie} value a call authenticated by its {@code authorization} header answers,
   * so that a client whose cookie middleware replays cookies on every call stays authenticated
   * on calls its library sends without the header (ADBC Java 0.20's prepared statements). The
   * cookie is a handshake token of the principal: HMAC-signed, short-lived, accepted by every
   * replica sharing {@code handshake_secret}, and never renewed by a call that presents only the
   * cookie. Null when the call already carries a cookie of the same principal with at least half
   * its lifetime left, or carries no header.
   */
  public String sessionCookie(Principal principal, String authorization, List<String> cookies) {
    if (authorization == null || authorization.isBlank()) {
      return null;
    }
    String cookie = Cookies.value(cookies, AUTH_COOKIE);
    if (cookie != null) {
      Optional<HandshakeTokens.Issued> issued = handshakeTokens.read(cookie);
      if (issued.isPresent() && issued.get().name().equals(principal.name())
          && !handshakeTokens.expiresWithin(issued.get(), handshakeTokens.lifetime().dividedBy(2))) {
        return null;
      }
    }
    return AUTH_COOKIE + "=" + handshakeTokens.issue(principal.name()) + "; Max-Age="
        + handshakeTokens.lifetime().toSeconds();
  }

  /**
   * The principal a bearer token names: a handshake token, or one whose hash a principal lists.
   *
   * @throws AuthenticationException when unknown or expired
   */
  public Principal bearer(String token) {
    Optional<String> issued = handshakeTokens.verify(token);
    if (issued.isPresent()) {
      Entry entry = byName.get(issued.get());
      if (entry == null) {
        throw new AuthenticationException("the handshake token's principal no longer exists");
      }
      return entry.principal();
    }
    byte[] hash = Secrets.sha256(token.getBytes(StandardCharsets.UTF_8));
    Principal found = null;
    for (Entry entry : byName.values()) {
      for (byte[] known : entry.tokenHashes()) {
        // Every entry is compared, so the time taken does not tell which one matched.
        if (MessageDigest.isEqual(known, hash) && found == null) {
          found = entry.principal();
        }
      }
    }
    if (found == null) {
      throw new AuthenticationException("the bearer token is not valid");
    }
    return found;
  }

  /**
   * Checks a user name and password and issues a short-lived bearer token for it.
   *
   * @throws AuthenticationException when the user is unknown, has no password, or it is wrong
   */
  public String login(String user, String password) {
    Entry entry = byName.get(user);
    String stored = entry == null || entry.passwordHash() == null
        ? DUMMY_PASSWORD : entry.passwordHash();
    boolean matches = Secrets.passwordMatches(password, stored);
    if (entry == null || entry.passwordHash() == null || !matches) {
      throw new AuthenticationException("wrong user name or password");
    }
    return handshakeTokens.issue(user);
  }
}
