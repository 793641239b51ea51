package dev.lake.cli.objects;

import dev.lake.cli.sql.ConnectionOptions;
import dev.lake.engine.DataLocation;
import dev.lake.engine.DataLocationCodec;
import dev.lake.sdk.FileUpload;
import dev.lake.sdk.LakeClient;
import dev.lake.sdk.LakeException;
import dev.lake.sdk.ObjectVerificationException;
import dev.lake.sdk.QueryResult;
import dev.lake.sdk.Row;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.arrow.vector.types.pojo.Field;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code lake get}: one managed object to a local file, verified. */
@Command(
    name = "get",
    description = {
      "Downloads a managed object to FILE, checking its size and SHA-256: name it by its URI"
          + " with --size and --sha256 (the values `lake put` printed), or by --from, a query"
          + " returning one FILE value.",
      "",
      "The bytes go to a temporary file beside FILE, renamed to FILE (replacing it) only once"
          + " verified; a failed or mismatching download leaves no file.",
      "",
      "Examples:",
      "  lake get file:///data/stage/tenants/default/objects/ab/ab12... --size 1048576 \\",
      "      --sha256 ab12... -o run42.mcap",
      "  lake get --from \"SELECT video FROM robots.episodes WHERE id = 42\" -o run42.mcap",
      ""
    },
    exitCodeListHeading = ObjectClients.EXIT_HEADING,
    exitCodeList = {
      "0:the object was downloaded and verified",
      "1:the download failed or the bytes are not the object's (no file left)",
      "2:bad command line, or --from did not return exactly one FILE value",
      "3:the endpoint could not be reached"
    })
public final class GetCommand implements Callable<Integer> {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Shows this help and exits.")
  boolean help;

  @CommandLine.Mixin ConnectionOptions connection;

  @Parameters(arity = "0..1", paramLabel = "URI",
      description = "The object's URI; needs --size and --sha256.")
  String uri;

  @Option(names = "--size", paramLabel = "BYTES", description = "The object's size in bytes.")
  Long size;

  @Option(names = "--sha256", paramLabel = "HEX", description = "The object's SHA-256 (64 hex digits).")
  String sha256;

  @Option(names = "--from", paramLabel = "QUERY",
      description = "A query returning one row with one FILE value, in place of URI, --size and"
          + " --sha256.")
  String from;

  @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE",
      description = "Where to write the object.")
  Path output;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if ((uri == null) == (from == null)) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "give either URI (with --size and --sha256) or --from QUERY");
    }
    DataLocation given = null;
    if (uri != null) {
      if (size == null || sha256 == null) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "URI needs --size and --sha256 to verify the download");
      }
      try {
        given = new DataLocation(new URI(uri), FileUpload.DEFAULT_MIME_TYPE, size, sha256);
      } catch (URISyntaxException | IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), uri + ": " + e.getMessage());
      }
    } else if (size != null || sha256 != null) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--from takes the size and SHA-256 from the row; give no --size or --sha256");
    }
    try (LakeClient lake = ObjectClients.connect(spec.commandLine(), connection, null)) {
      DataLocation location = given != null ? given : locate(lake);
      if (location == null) {
        return ObjectClients.BAD_INPUT;
      }
      return download(lake, location, out, err);
    } catch (LakeException e) {
      err.println("lake get: " + (uri != null ? uri : from) + ": " + e.getMessage());
      err.flush();
      return ObjectClients.exitCode(e);
    }
  }

  /** The one FILE value {@code --from} returns, or null (reported) when it does not return one. */
  private DataLocation locate(LakeClient lake) {
    PrintWriter err = spec.commandLine().getErr();
    try (QueryResult result = lake.query(from)) {
      List<Field> fields = result.reader().getVectorSchemaRoot().getSchema().getFields();
      if (fields.size() != 1 || !DataLocationCodec.isFile(fields.getFirst())) {
        err.println("lake get: --from must return one FILE column, got: "
            + String.join(", ", fields.stream().map(f -> f.getName()).toList()));
        err.flush();
        return null;
      }
      Iterator<Row> rows = result.rows().iterator();
      DataLocation location = rows.hasNext() ? rows.next().getLocation(fields.getFirst().getName())
          : null;
      if (location == null || rows.hasNext()) {
        err.println("lake get: --from must return exactly one row with a FILE value; it returned "
            + (location == null ? "none" : "several rows"));
        err.flush();
        return null;
      }
      return location;
    } catch (IOException e) {
      err.println("lake get: cannot read the result of --from: " + e.getMessage());
      err.flush();
      return null;
    }
  }

  private int download(LakeClient lake, DataLocation location, PrintWriter out, PrintWriter err) {
    Path target = output.toAbsolutePath();
    Path part = null;
    try {
      part = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".part");
      try (InputStream in = lake.open(location)) {
        Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
      }
      Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      part = null;
      out.println("wrote " + location.size() + " bytes to " + output + " (sha256 "
          + location.sha256() + ", verified)");
      out.flush();
      return 0;
    } catch (ObjectVerificationException e) {
      err.println("lake get: " + location.uri() + " failed verification: " + e.getMessage());
      return ObjectClients.FAILED;
    } catch (NoSuchFileException e) {
      err.println("lake get: " + (part == null ? "cannot write " + target
          : location.uri() + " does not exist") + " (" + e.getMessage() + ")");
      return ObjectClients.FAILED;
    } catch (IOException e) {
      err.println("lake get: " + location.uri() + ": " + e);
      return ObjectClients.FAILED;
    } finally {
      err.flush();
      if (part != null) {
        try {
          Files.deleteIfExists(part);
        } catch (IOException e) {
          err.println("lake get: cannot remove " + part + ": " + e.getMessage());
        }
      }
    }
  }
}
