package dev.lake.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.util.Objects;

/**
 * The managed stage a lake server names for the calling principal (Flight action
 * {@code lake.stage}): {@code root} is the tenant's prefix, {@code file:///.../tenants/<t>/} or
 * {@code s3://bucket/prefix/tenants/<t>/}, always ending in {@code /}; for S3 the endpoint (null:
 * AWS's own), region and addressing style the SDK uses with its own storage credentials.
 */
record StageDescriptor(String tenant, URI root, URI s3Endpoint, String s3Region,
    boolean s3PathStyle) {

  StageDescriptor {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(root, "root");
    if (!root.isAbsolute() || !root.toString().endsWith("/")) {
      throw new IllegalArgumentException("stage root must be an absolute URI ending in '/': "
          + root);
    }
    if (!"file".equals(root.getScheme()) && !"s3".equals(root.getScheme())) {
      throw new IllegalArgumentException("stage root must be file: or s3:, got " + root);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The descriptor in the JSON body of action {@code lake.stage}: {@code {"tenant", "root",
   * "s3Endpoint", "s3Region", "s3PathStyle"}}, the last three null or false for a local stage.
   *
   * @throws IllegalArgumentException if the body is not such JSON
   */
  static StageDescriptor parse(byte[] json) {
    try {
      JsonNode body = JSON.readTree(json);
      if (body == null || !body.isObject() || !body.path("tenant").isTextual()
          || !body.path("root").isTextual()) {
        throw new IllegalArgumentException("the server's stage descriptor lacks tenant or root");
      }
      return new StageDescriptor(body.get("tenant").asText(), URI.create(body.get("root").asText()),
          text(body, "s3Endpoint") == null ? null : URI.create(text(body, "s3Endpoint")),
          text(body, "s3Region"), body.path("s3PathStyle").asBoolean(false));
    } catch (IOException e) {
      throw new IllegalArgumentException("the server's stage descriptor is not JSON: "
          + e.getMessage(), e);
    }
  }

  private static String text(JsonNode body, String name) {
    JsonNode value = body.get(name);
    return value == null || value.isNull() ? null : value.asText();
  }

  boolean isS3() {
    return "s3".equals(root.getScheme());
  }
}
