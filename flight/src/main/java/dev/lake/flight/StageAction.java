package dev.lake.flight;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import dev.lake.flight.auth.Principal;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apache.arrow.flight.impl.Flight;

/**
 * Flight action {@code lake.stage}: the managed object stage of the calling principal, as one
 * JSON result {@code {"tenant", "root", "s3Endpoint", "s3Region", "s3PathStyle"}}. {@code root}
 * is the server's stage root plus {@code tenants/<tenant>/}; the SDK uploads there with its own
 * storage credentials, so no object byte passes through a lake server. The JSON shape is the
 * contract with the SDK (which parses it without depending on this module).
 */
final class StageAction {

  static final String TYPE = "lake.stage";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Tenant names that are safe as one path segment of a stage key. */
  private static final Pattern TENANT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

  private final URI root;
  private final URI s3Endpoint;
  private final String s3Region;
  private final boolean s3PathStyle;

  /**
   * @param root the stage root, {@code file:} or {@code s3:}, ending in {@code /}
   * @param s3Endpoint the S3 endpoint clients use (null: AWS's own); ignored for {@code file:}
   * @throws IllegalArgumentException for any other root
   */
  StageAction(URI root, URI s3Endpoint, String s3Region, boolean s3PathStyle) {
    Objects.requireNonNull(root, "root");
    if (!root.isAbsolute() || !root.toString().endsWith("/")
        || !("file".equals(root.getScheme()) || "s3".equals(root.getScheme()))) {
      throw new IllegalArgumentException(
          "the stage root must be an absolute file: or s3: URI ending in '/', got " + root);
    }
    this.root = root;
    this.s3Endpoint = s3Endpoint;
    this.s3Region = s3Region;
    this.s3PathStyle = s3PathStyle;
  }

  /**
   * The caller's stage descriptor.
   *
   * @throws io.vertx.grpc.server.StatusException FAILED_PRECONDITION if the principal's tenant
   *     cannot name a stage prefix
   */
  List<Flight.Result> run(Principal principal) {
    String tenant = principal.tenant();
    if (!TENANT.matcher(tenant).matches()) {
      throw ErrorMapper.status(io.vertx.grpc.common.GrpcStatus.FAILED_PRECONDITION,
          "tenant '" + tenant + "' cannot name a stage prefix (letters, digits, '_', '.', '-')");
    }
    ObjectNode body = JSON.createObjectNode();
    body.put("tenant", tenant);
    body.put("root", root.resolve("tenants/" + tenant + "/").toString());
    boolean s3 = "s3".equals(root.getScheme());
    body.put("s3Endpoint", s3 && s3Endpoint != null ? s3Endpoint.toString() : null);
    body.put("s3Region", s3 ? s3Region : null);
    body.put("s3PathStyle", s3 && s3PathStyle);
    return List.of(Flight.Result.newBuilder()
        .setBody(ByteString.copyFromUtf8(body.toString())).build());
  }
}
