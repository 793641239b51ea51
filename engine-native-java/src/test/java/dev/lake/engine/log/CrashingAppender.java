package dev.lake.engine.log;

import dev.lake.engine.MaintenancePolicy;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * The child process of {@link LogCrashTest}: works on one table until it is killed, printing
 * {@code BEGIN <op>} before and {@code END <op>} after each operation, and {@code ACK <version>
 * <batchId>} only after an append has returned.
 *
 * <p>Arguments: table directory, first batch id, rows per batch, phase ({@code append}: appends
 * only; {@code compact}: two appends then a compaction, repeated; {@code expire}: an append then
 * an expiry keeping 3 versions, repeated; {@code warmup}: a few of each, then exit, which lets
 * the JVM write its class-data archive for the later children).
 */
public final class CrashingAppender {

  static final Map<String, String> PROPERTIES = Map.of(
      "log.block.rows", "64",
      "log.segment.bytes", "16384",
      "log.checkpoint.interval", "5",
      "log.orphan.grace.seconds", "0");
  static final MaintenancePolicy COMPACT = MaintenancePolicy.compactOnly(64 << 10, 2);
  static final MaintenancePolicy EXPIRE = new MaintenancePolicy(64 << 10, 4, 3, Duration.ZERO);

  private CrashingAppender() {}

  public static void main(String[] args) throws Exception {
    TableLocation location = TableLocation.of(Path.of(args[0]));
    long batch = Long.parseLong(args[1]);
    int rows = Integer.parseInt(args[2]);
    String phase = args[3];
    PrintStream out = System.out;
    try (RootAllocator allocator = new RootAllocator();
        TableEngine engine = new LogEngineFactory().create(PROPERTIES);
        TableHandle handle = engine.open(location).orElseThrow()) {
      out.println("READY " + handle.currentVersion());
      out.flush();
      int steps = phase.equals("warmup") ? 6 : Integer.MAX_VALUE;
      for (int step = 0; step < steps; step++) {
        boolean maintain = switch (phase) {
          case "warmup" -> step >= 4;
          case "append" -> false;
          case "compact" -> step % 3 == 2;
          case "expire" -> step % 2 == 1;
          default -> throw new IllegalArgumentException("unknown phase " + phase);
        };
        if (maintain) {
          String op = phase.equals("expire") || step == 5 ? "expire" : "compact";
          out.println("BEGIN " + op);
          out.flush();
          engine.maintain(location, op.equals("compact") ? COMPACT : EXPIRE);
          out.println("END " + op);
        } else {
          out.println("BEGIN append");
          out.flush();
          Version v;
          try (ArrowReader reader = LogTestData.batchReader(allocator, batch, rows, 16)) {
            v = handle.append(LogTestData.batchOp(batch), reader);
          }
          out.println("ACK " + v.number() + " " + batch);
          out.println("END append");
          batch++;
        }
        out.flush();
      }
    }
  }
}
