package dev.lake.engine.log;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableHandle;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * The child process of {@link LogMultiProcessTest}: {@code threads} threads, each with its own
 * handle, append {@code perThread} tracked batches to one table and print {@code ACK <version>
 * <batchId>} after each; exits 0 when all are done.
 *
 * <p>Arguments: table URI, process number, threads, appends per thread, rows per batch, then
 * engine properties as {@code key=value}.
 */
public final class ConcurrentAppender {

  private ConcurrentAppender() {}

  public static void main(String[] args) throws Exception {
    TableLocation location = new TableLocation(URI.create(args[0]));
    int process = Integer.parseInt(args[1]);
    int threads = Integer.parseInt(args[2]);
    int perThread = Integer.parseInt(args[3]);
    int rows = Integer.parseInt(args[4]);
    Map<String, String> properties = new HashMap<>();
    for (int i = 5; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      properties.put(kv[0], kv[1]);
    }
    PrintStream out = System.out;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (RootAllocator allocator = new RootAllocator();
        TableEngine engine = new LogEngineFactory().create(properties)) {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long firstBatch = process * 1_000L + t * 100L;
        done.add(pool.submit(() -> {
          try (TableHandle handle = engine.open(location).orElseThrow()) {
            for (long b = firstBatch; b < firstBatch + perThread; b++) {
              Version v;
              try (ArrowReader reader = LogTestData.batchReader(allocator, b, rows, 16)) {
                v = handle.append(LogTestData.batchOp(b), reader);
              }
              synchronized (out) {
                out.println("ACK " + v.number() + " " + b);
                out.flush();
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
