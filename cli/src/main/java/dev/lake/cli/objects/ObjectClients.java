package dev.lake.cli.objects;

import dev.lake.cli.sql.ConnectionOptions;
import dev.lake.sdk.Credentials;
import dev.lake.sdk.LakeClient;
import dev.lake.sdk.LakeException;
import dev.lake.sdk.StageCredentials;
import java.nio.file.Path;
import picocli.CommandLine;

/** What {@code lake put} and {@code lake get} share: the SDK client and the exit codes. */
final class ObjectClients {
  private ObjectClients() {}

  static final int FAILED = 1;
  static final int BAD_INPUT = 2;
  static final int UNREACHABLE = 3;

  static final String EXIT_HEADING = "%nExit codes:%n";

  /**
   * An SDK client of the endpoint.
   *
   * @param resumeDir where unfinished S3 multipart uploads are remembered; null for none
   */
  static LakeClient connect(CommandLine command, ConnectionOptions connection, Path resumeDir) {
    String token = connection.token();
    try {
      Credentials credentials = token == null || token.isEmpty() ? Credentials.none()
          : Credentials.bearer(token);
      return LakeClient.connect(connection.endpoint().toString(), credentials,
          StageCredentials.defaultChain(), resumeDir);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(command, "--token: " + e.getMessage());
    }
  }

  /** The exit code of a failure the server or the stage reported. */
  static int exitCode(LakeException e) {
    return switch (e) {
      case LakeException.Unavailable unavailable -> UNREACHABLE;
      case LakeException.InvalidArgument invalid -> BAD_INPUT;
      default -> FAILED;
    };
  }
}
