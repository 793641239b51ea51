package dev.lake.engine;

import java.util.HexFormat;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The identity of one append: who asked, for which table, under which client-chosen operation id,
 * and the SHA-256 digest of the payload. A retry reuses all four, which is what lets an engine or
 * the registry recognise a replay.
 */
public record AppendOperation(String tenant, String table, UUID operationId, String sha256) {

  private static final Pattern HEX_SHA256 = Pattern.compile("[0-9a-f]{64}");

  public AppendOperation {
    requireText(tenant, "tenant");
    requireText(table, "table");
    Objects.requireNonNull(operationId, "operationId");
    Objects.requireNonNull(sha256, "sha256");
    if (!HEX_SHA256.matcher(sha256).matches()) {
      throw new IllegalArgumentException("sha256 must be 64 lowercase hex digits, got: " + sha256);
    }
  }

  public static AppendOperation of(String tenant, String table, UUID operationId, byte[] digest) {
    if (digest.length != 32) {
      throw new IllegalArgumentException("a SHA-256 digest has 32 bytes, got " + digest.length);
    }
    return new AppendOperation(tenant, table, operationId, HexFormat.of().formatHex(digest));
  }

  private static void requireText(String value, String what) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be blank");
    }
  }
}
