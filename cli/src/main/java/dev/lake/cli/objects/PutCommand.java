package dev.lake.cli.objects;

import dev.lake.cli.sql.ConnectionOptions;
import dev.lake.engine.DataLocation;
import dev.lake.engine.DataLocationCodec;
import dev.lake.sdk.ExecuteResult;
import dev.lake.sdk.FileUpload;
import dev.lake.sdk.LakeClient;
import dev.lake.sdk.LakeException;
import dev.lake.sdk.QueryResult;
import dev.lake.sdk.UploadProgress;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code lake put}: one file into a table's FILE column, with the row's other values. */
@Command(
    name = "put",
    description = {
      "Uploads FILE to the managed stage of the endpoint's server and inserts one row into TABLE"
          + " whose FILE column holds its location (uri, media type, size, SHA-256), the other"
          + " columns set by --set (unset ones are NULL).",
      "",
      "Everything is checked before any byte is uploaded: the table, its FILE column, each --set"
          + " column and value (converted to the column's type), the file. Running the same"
          + " command again after an interruption resumes an S3 multipart upload from the parts"
          + " already stored (see --resume-dir).",
      "",
      "Examples:",
      "  lake put robots.episodes --file run42.mcap --set id=42 --set robot=ur5",
      "  lake put robots.episodes --file run42.mp4 --column video --mime video/mp4 --set id=42",
      ""
    },
    exitCodeListHeading = ObjectClients.EXIT_HEADING,
    exitCodeList = {
      "0:the row was inserted (the committed table version and the DataLocation printed)",
      "1:the server or the upload failed (nothing was inserted)",
      "2:bad command line or input: unknown table column, a value that is not of its column's"
          + " type, no FILE column, a missing file (nothing was uploaded)",
      "3:the endpoint could not be reached"
    })
public final class PutCommand implements Callable<Integer> {

  private static final Pattern TABLE = Pattern.compile(
      "[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*){0,2}");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Shows this help and exits.")
  boolean help;

  @CommandLine.Mixin ConnectionOptions connection;

  @Parameters(index = "0", paramLabel = "TABLE",
      description = "The table: namespace.table (or lake.namespace.table).")
  String table;

  @Option(names = {"-f", "--file"}, required = true, paramLabel = "FILE",
      description = "The local file to upload.")
  Path file;

  @Option(names = {"-s", "--set"}, paramLabel = "COLUMN=VALUE", mapFallbackValue = "",
      description = "A value of another column of the row (repeatable). BIGINT, INTEGER, DOUBLE,"
          + " VARCHAR, BOOLEAN (true/false), DATE (2026-01-05) and TIMESTAMP"
          + " (2026-01-05T08:00:00Z) columns can be set.")
  Map<String, String> set = new LinkedHashMap<>();

  @Option(names = {"-c", "--column"}, paramLabel = "COLUMN",
      description = "The FILE column to store the file in; needed only when TABLE has several.")
  String column;

  @Option(names = {"-m", "--mime"}, paramLabel = "TYPE",
      description = "The file's media type, e.g. video/mp4 (default: guessed from the file name,"
          + " else application/octet-stream).")
  String mime;

  @Option(names = "--resume-dir", paramLabel = "DIR",
      defaultValue = "${env:LAKE_RESUME_DIR:-${sys:user.home}/.lake/resume}",
      description = "Where unfinished S3 multipart uploads are remembered, so that running the"
          + " same command again resumes them (default: $LAKE_RESUME_DIR or ${DEFAULT-VALUE}).")
  Path resumeDir;

  @Option(names = {"-q", "--quiet"}, description = "Draws no progress on standard error.")
  boolean quiet;

  private final BooleanSupplier terminal;
  private final UnaryOperator<UploadProgress> progress;

  /** Draws progress in place when there is a terminal. */
  public PutCommand() {
    this(() -> System.console() != null && System.console().isTerminal());
  }

  /** For tests: {@code terminal} decides whether progress is one line redrawn in place. */
  public PutCommand(BooleanSupplier terminal) {
    this(terminal, UnaryOperator.identity());
  }

  /**
   * For tests and embedding: {@code progress} wraps the upload's progress listener (a wrapper
   * that throws stops the upload, leaving an S3 multipart upload to resume).
   */
  public PutCommand(BooleanSupplier terminal, UnaryOperator<UploadProgress> progress) {
    this.terminal = terminal;
    this.progress = progress;
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (!TABLE.matcher(table).matches()) {
      return refuse(err, "'" + table + "' is not a table name (namespace.table)");
    }
    if (!Files.isRegularFile(file)) {
      return refuse(err, "--file " + file + (Files.exists(file) ? " is not a regular file"
          : " does not exist"));
    }
    if (!Files.isReadable(file)) {
      return refuse(err, "--file " + file + " is not readable");
    }
    FileUpload upload;
    try {
      upload = FileUpload.of(file, mime != null ? mime : guessMime(file));
    } catch (IllegalArgumentException e) {
      return refuse(err, "--mime: " + e.getMessage());
    }
    try (LakeClient lake = ObjectClients.connect(spec.commandLine(), connection, resumeDir)) {
      Schema schema = schema(lake);
      Field fileColumn;
      List<Field> columns = new ArrayList<>();
      List<Object> values = new ArrayList<>();
      try {
        fileColumn = fileColumn(schema);
        for (Map.Entry<String, String> entry : set.entrySet()) {
          Field target = field(schema, entry.getKey());
          if (DataLocationCodec.isFile(target)) {
            return refuse(err, "--set " + entry.getKey() + ": column '" + target.getName()
                + "' is a FILE column; only --file fills one");
          }
          columns.add(target);
          values.add(ColumnValue.convert(target, entry.getValue()));
        }
      } catch (ColumnValue.Unconvertible e) {
        return refuse(err, e.getMessage());
      }
      StoredLocation stored = new StoredLocation(progress.apply(quiet ? UploadProgress.none()
          : new ProgressLine(err, file.getFileName().toString(), terminal.getAsBoolean(),
              System::nanoTime)));
      values.addFirst(upload.withProgress(stored));
      columns.addFirst(fileColumn);
      ExecuteResult inserted = lake.executeWithVersion(insert(columns), values.toArray());
      DataLocation location = stored.location;
      long rows = inserted.count();
      out.println("inserted " + rows + (rows == 1 ? " row" : " rows") + " into " + table);
      inserted.version().ifPresent(version -> out.println("committed version " + version));
      out.println("uri:    " + location.uri());
      out.println("size:   " + location.size());
      out.println("sha256: " + location.sha256());
      out.println("mime:   " + location.mimeType());
      out.flush();
      return 0;
    } catch (LakeException e) {
      err.println("lake put: " + table + ": " + e.getMessage());
      err.flush();
      return ObjectClients.exitCode(e);
    } catch (IOException e) {
      err.println("lake put: cannot read the columns of " + table + ": " + e.getMessage());
      err.flush();
      return ObjectClients.FAILED;
    }
  }

  private Schema schema(LakeClient lake) throws IOException {
    try (QueryResult result = lake.query("SELECT * FROM " + table + " LIMIT 0")) {
      return result.reader().getVectorSchemaRoot().getSchema();
    }
  }

  private Field fileColumn(Schema schema) throws ColumnValue.Unconvertible {
    List<String> files = schema.getFields().stream().filter(DataLocationCodec::isFile)
        .map(Field::getName).toList();
    if (column != null) {
      Field named = field(schema, column);
      if (!DataLocationCodec.isFile(named)) {
        throw new ColumnValue.Unconvertible("--column " + column + ": column '" + named.getName()
            + "' is not a FILE column" + (files.isEmpty() ? "; " + table + " has none"
            : "; FILE columns of " + table + ": " + String.join(", ", files)));
      }
      return named;
    }
    if (files.isEmpty()) {
      throw new ColumnValue.Unconvertible(table + " has no FILE column (columns: "
          + names(schema) + ")");
    }
    if (files.size() > 1) {
      throw new ColumnValue.Unconvertible(table + " has several FILE columns: "
          + String.join(", ", files) + "; name one with --column");
    }
    return schema.findField(files.getFirst());
  }

  private Field field(Schema schema, String name) throws ColumnValue.Unconvertible {
    for (Field field : schema.getFields()) {
      if (field.getName().equals(name)) {
        return field;
      }
    }
    for (Field field : schema.getFields()) {
      if (field.getName().equalsIgnoreCase(name)) {
        return field;
      }
    }
    throw new ColumnValue.Unconvertible("'" + name + "' is not a column of " + table
        + " (columns: " + names(schema) + ")");
  }

  private static String names(Schema schema) {
    return String.join(", ", schema.getFields().stream().map(Field::getName).toList());
  }

  private String insert(List<Field> columns) {
    StringBuilder sql = new StringBuilder("INSERT INTO ").append(table).append(" (");
    StringBuilder marks = new StringBuilder();
    for (int i = 0; i < columns.size(); i++) {
      String separator = i == 0 ? "" : ", ";
      sql.append(separator).append('"').append(columns.get(i).getName().replace("\"", "\"\""))
          .append('"');
      marks.append(separator).append('?');
    }
    return sql.append(") VALUES (").append(marks).append(')').toString();
  }

  private static String guessMime(Path file) {
    try {
      String probed = Files.probeContentType(file);
      if (probed != null && probed.indexOf('/') > 0) {
        return probed;
      }
    } catch (IOException e) {
      // no guess: the default
    }
    return FileUpload.DEFAULT_MIME_TYPE;
  }

  private static int refuse(PrintWriter err, String message) {
    err.println("lake put: " + message);
    err.flush();
    return ObjectClients.BAD_INPUT;
  }

  /** Forwards progress and keeps the stored object's location. */
  private static final class StoredLocation implements UploadProgress {
    private final UploadProgress progress;
    volatile DataLocation location;

    StoredLocation(UploadProgress progress) {
      this.progress = progress;
    }

    @Override
    public void onProgress(long done, long total) {
      progress.onProgress(done, total);
    }

    @Override
    public void onStored(DataLocation stored) {
      location = stored;
    }
  }
}
