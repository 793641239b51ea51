package dev.lake.flight.ticket;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The AES-256 keys tickets and handles are sealed with: one active key (new envelopes) and any
 * number of verification keys (envelopes sealed before a rotation still open while their key is
 * listed). Immutable. The file form, shared by every replica of a cluster:
 *
 * <pre>
 *   {"active": "k2", "keys": [{"id": "k1", "key": "&lt;base64 of 32 bytes&gt;"},
 *                            {"id": "k2", "key": "..."}]}
 * </pre>
 *
 * A key ring file is a secret: {@link #load} refuses one that its group or others may read.
 */
public final class KeyRing {

  /** Key ids: what an envelope's clear header can carry (1 to 64 of these characters). */
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  private static final int KEY_BYTES = 32;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom RANDOM = new SecureRandom();

  private final String activeId;
  private final Map<String, SecretKey> keys;

  /**
   * @param keys key id to the 32 raw key bytes; must hold {@code activeId}
   * @throws IllegalArgumentException for a bad id, a key not of 32 bytes or a missing active key
   */
  public KeyRing(String activeId, Map<String, byte[]> keys) {
    Objects.requireNonNull(activeId, "activeId");
    Map<String, SecretKey> copy = new LinkedHashMap<>();
    keys.forEach((id, bytes) -> {
      if (!ID.matcher(id).matches()) {
        throw new IllegalArgumentException("key id '" + id + "' is not 1 to 64 of [A-Za-z0-9._-]");
      }
      if (bytes.length != KEY_BYTES) {
        throw new IllegalArgumentException("key '" + id + "' has " + bytes.length
            + " bytes; AES-256 keys have " + KEY_BYTES);
      }
      copy.put(id, new SecretKeySpec(bytes.clone(), "AES"));
    });
    if (!copy.containsKey(activeId)) {
      throw new IllegalArgumentException("the active key '" + activeId + "' is not in the ring");
    }
    this.activeId = activeId;
    this.keys = Map.copyOf(copy);
  }

  /** A ring of one fresh random key with id {@code id}. */
  public static KeyRing generate(String id) {
    byte[] key = new byte[KEY_BYTES];
    RANDOM.nextBytes(key);
    return new KeyRing(id, Map.of(id, key));
  }

  /** This ring with a fresh random key {@code id} made active; the old keys still verify. */
  public KeyRing rotate(String id) {
    byte[] key = new byte[KEY_BYTES];
    RANDOM.nextBytes(key);
    Map<String, byte[]> next = raw();
    next.put(id, key);
    return new KeyRing(id, next);
  }

  /** This ring without key {@code id} (envelopes sealed by it no longer open). */
  public KeyRing retire(String id) {
    Map<String, byte[]> next = raw();
    next.remove(id);
    return new KeyRing(activeId, next);
  }

  String activeId() {
    return activeId;
  }

  SecretKey active() {
    return keys.get(activeId);
  }

  /** The key {@code id}, or null if the ring does not hold it. */
  SecretKey key(String id) {
    return keys.get(id);
  }

  /**
   * Reads a key ring file.
   *
   * @throws IOException if it cannot be read
   * @throws IllegalArgumentException if it is not a key ring, or its group or others may read it
   */
  public static KeyRing load(Path file) throws IOException {
    checkPrivate(file);
    JsonNode root;
    try {
      root = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("key ring " + file + " is not JSON");
    }
    if (root == null || !root.path("active").isTextual() || !root.path("keys").isArray()) {
      throw new IllegalArgumentException("key ring " + file
          + " needs \"active\" (a key id) and \"keys\" (a list of {\"id\", \"key\"})");
    }
    Map<String, byte[]> keys = new LinkedHashMap<>();
    for (JsonNode entry : root.get("keys")) {
      if (!entry.path("id").isTextual() || !entry.path("key").isTextual()) {
        throw new IllegalArgumentException("key ring " + file
            + ": every key needs a text \"id\" and a base64 \"key\"");
      }
      try {
        keys.put(entry.get("id").asText(), Base64.getDecoder().decode(entry.get("key").asText()));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("key ring " + file + ": key '"
            + entry.get("id").asText() + "' is not base64");
      }
    }
    try {
      return new KeyRing(root.get("active").asText(), keys);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("key ring " + file + ": " + e.getMessage());
    }
  }

  /**
   * Writes this ring to {@code file} readable by its owner only, atomically (a replica reloading
   * it sees the old or the new ring, never half of one).
   */
  public void write(Path file) throws IOException {
    ObjectNode root = JSON.createObjectNode().put("active", activeId);
    ArrayNode list = root.putArray("keys");
    keys.forEach((id, key) -> list.addObject().put("id", id)
        .put("key", Base64.getEncoder().encodeToString(key.getEncoded())));
    Path parent = file.toAbsolutePath().getParent();
    Path temp = Files.createTempFile(parent, ".keyring", ".tmp");
    try {
      setOwnerOnly(temp);
      Files.writeString(temp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  private Map<String, byte[]> raw() {
    Map<String, byte[]> out = new LinkedHashMap<>();
    keys.forEach((id, key) -> out.put(id, key.getEncoded()));
    return out;
  }

  private static void setOwnerOnly(Path file) throws IOException {
    if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }
  }

  private static void checkPrivate(Path file) throws IOException {
    if (!Files.getFileStore(file).supportsFileAttributeView("posix")) {
      return;
    }
    Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
    for (PosixFilePermission open : Set.of(PosixFilePermission.GROUP_READ,
        PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_WRITE,
        PosixFilePermission.OTHERS_WRITE)) {
      if (permissions.contains(open)) {
        throw new IllegalArgumentException("key ring " + file + " is readable or writable by"
            + " its group or others (" + PosixFilePermissions.toString(permissions)
            + "); make it owner-only: chmod 600 " + file);
      }
    }
  }
}
