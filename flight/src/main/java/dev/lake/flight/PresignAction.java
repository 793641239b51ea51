package dev.lake.flight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import dev.lake.flight.auth.Principal;
import io.vertx.grpc.common.GrpcStatus;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.flight.impl.Flight;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.services.s3.presigner.model.PresignedGetObjectRequest;

/**
 * Flight action {@code lake.presign}: a time-limited S3 GET URL for one managed object, signed
 * with the server's own storage credentials, so a client without any can hand out or fetch
 * objects. Body {@code {"uri": "s3://...", "ttl_seconds": N}}; result {@code {"url", "expires_at"}}.
 * The object must lie under the caller's tenant prefix ({@code <stage root>tenants/<tenant>/}),
 * checked before anything is signed. Signing is local computation: no request reaches the store.
 */
final class PresignAction implements AutoCloseable {

  static final String TYPE = "lake.presign";
  /** SigV4 presigned URLs live at most seven days. */
  static final Duration MAX_TTL = Duration.ofDays(7);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI root;
  private final S3Presigner presigner;

  /**
   * @param root the stage root ({@code s3://bucket/prefix/} or {@code file:...}: nothing to sign)
   * @param credentials the server's storage credentials
   */
  PresignAction(URI root, URI s3Endpoint, String s3Region, boolean s3PathStyle,
      AwsCredentialsProvider credentials) {
    this.root = Objects.requireNonNull(root, "root");
    if (!"s3".equals(root.getScheme())) {
      this.presigner = null;
      return;
    }
    S3Presigner.Builder builder = S3Presigner.builder().credentialsProvider(credentials)
        .region(Region.of(s3Region == null || s3Region.isBlank() ? "us-east-1" : s3Region))
        .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(s3PathStyle).build());
    if (s3Endpoint != null) {
      builder.endpointOverride(s3Endpoint);
    }
    this.presigner = builder.build();
  }

  /**
   * @throws io.vertx.grpc.server.StatusException INVALID_ARGUMENT for a malformed body or a TTL
   *     outside 1 s to 7 days; PERMISSION_DENIED for an object outside the caller's prefix;
   *     UNIMPLEMENTED for a local stage or a server without storage credentials (the client may
   *     sign with its own)
   */
  List<Flight.Result> run(Principal principal, byte[] body) {
    JsonNode request;
    try {
      request = JSON.readTree(body);
    } catch (IOException e) {
      throw invalid("the " + TYPE + " body must be JSON {\"uri\": ..., \"ttl_seconds\": ...}");
    }
    if (request == null || !request.path("uri").isTextual()
        || !request.path("ttl_seconds").canConvertToLong()) {
      throw invalid("the " + TYPE + " body needs \"uri\" (a string) and \"ttl_seconds\" (an integer)");
    }
    long ttlSeconds = request.get("ttl_seconds").asLong();
    if (ttlSeconds < 1 || ttlSeconds > MAX_TTL.toSeconds()) {
      throw invalid("ttl_seconds must be 1 to " + MAX_TTL.toSeconds() + " (7 days), got " + ttlSeconds);
    }
    if (presigner == null) {
      throw ErrorMapper.status(GrpcStatus.UNIMPLEMENTED, "the stage " + root
          + " is a local directory: read the object's file directly (presigned URLs need an S3 stage)");
    }
    String text = request.get("uri").asText();
    URI object;
    try {
      object = new URI(text).normalize();
    } catch (java.net.URISyntaxException e) {
      throw invalid("malformed object uri '" + text + "'");
    }
    String prefix = root.resolve("tenants/" + principal.tenant() + "/").toString();
    if (!object.toString().equals(text) || !text.startsWith(prefix) || text.length() == prefix.length()
        || object.getRawQuery() != null || object.getRawFragment() != null) {
      throw ErrorMapper.status(GrpcStatus.PERMISSION_DENIED, "object " + text
          + " is not in the stage of tenant '" + principal.tenant() + "' (" + prefix + ")");
    }
    try {
      PresignedGetObjectRequest signed = presigner.presignGetObject(get -> get
          .signatureDuration(Duration.ofSeconds(ttlSeconds))
          .getObjectRequest(o -> o.bucket(object.getHost()).key(object.getPath().substring(1))));
      ObjectNode answer = JSON.createObjectNode();
      answer.put("url", signed.url().toString());
      answer.put("expires_at", signed.expiration().toString());
      return List.of(Flight.Result.newBuilder()
          .setBody(ByteString.copyFromUtf8(answer.toString())).build());
    } catch (SdkClientException e) {
      throw ErrorMapper.status(GrpcStatus.UNIMPLEMENTED,
          "this server has no storage credentials to presign with: " + e.getMessage());
    }
  }

  private static RuntimeException invalid(String message) {
    return ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, message);
  }

  @Override
  public void close() {
    if (presigner != null) {
      presigner.close();
    }
  }
}
