package dev.lake.sdk;

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

  boolean isS3() {
    return "s3".equals(root.getScheme());
  }
}
