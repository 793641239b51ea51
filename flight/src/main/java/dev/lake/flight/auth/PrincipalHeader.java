package dev.lake.flight.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The end principal a Query replica forwards to Metasrv with a write, so Metasrv re-checks its
 * grants. Metasrv trusts the header only because the call also carries the service token (an
 * authenticated service identity); anything without the token is refused before it is read.
 */
public final class PrincipalHeader {

  /** The gRPC header (base64url of a small JSON object). */
  public static final String NAME = "x-lake-principal";
  private static final ObjectMapper JSON = new ObjectMapper();

  private PrincipalHeader() {}

  public static String encode(Principal principal) {
    ObjectNode node = JSON.createObjectNode().put("name", principal.name())
        .put("tenant", principal.tenant()).put("role", principal.role().name());
    principal.namespaceGrants().forEach(node.putArray("namespaces")::add);
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString(node.toString().getBytes(StandardCharsets.UTF_8));
  }

  /**
   * @return the principal, or null when {@code header} is null
   * @throws AuthenticationException if the header is malformed
   */
  public static Principal decode(String header) {
    if (header == null) {
      return null;
    }
    try {
      JsonNode node = JSON.readTree(Base64.getUrlDecoder().decode(header));
      Set<String> grants = new LinkedHashSet<>();
      node.path("namespaces").forEach(grant -> grants.add(grant.asText()));
      return new Principal(node.get("name").asText(), node.get("tenant").asText(),
          Principal.Role.valueOf(node.get("role").asText()), grants);
    } catch (IOException | RuntimeException e) {
      throw new AuthenticationException("the " + NAME + " header is malformed");
    }
  }
}
