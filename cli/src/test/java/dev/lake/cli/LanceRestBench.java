package dev.lake.cli;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.RestAdapter;
import org.lance.namespace.RestNamespace;
import org.lance.namespace.model.CreateNamespaceRequest;

/**
 * A benchmark, not a test: DescribeTable (plain and detailed) and ListTables latency and
 * requests/s against lake dev's Lance Namespace REST API and the reference RestAdapter on the
 * same machine, with 1 and 32 clients. Run by hand (see docs/lance-rest.md); arguments: seconds
 * per measurement (default 3).
 */
public final class LanceRestBench {

  private LanceRestBench() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    Path dir = Files.createTempDirectory("lance-rest-bench");
    try (BufferAllocator allocator = new RootAllocator();
        DevServer lake = DevServer.start(dir.resolve("lake"), "127.0.0.1", 0, QueryLimits.defaults(), null, 0);
        RestAdapter reference = new RestAdapter("dir",
            Map.of("root", Files.createDirectories(dir.resolve("reference")).toString()), "127.0.0.1", 0)) {
      reference.start();
      for (int port : new int[] {lake.lanceRestPort(), reference.getPort()}) {
        seed(allocator, port);
      }
      String[][] operations = {
        {"DescribeTable", "POST", "/v1/table/robots%24runs/describe", "{}"},
        {"DescribeTable detailed", "POST", "/v1/table/robots%24runs/describe", "{\"load_detailed_metadata\":true}"},
        {"ListTables", "GET", "/v1/namespace/robots/table/list", null},
      };
      System.out.println("| operation | clients | server | req/s | p50 ms | p99 ms |");
      System.out.println("|---|---|---|---|---|---|");
      for (String[] op : operations) {
        for (int clients : new int[] {1, 32}) {
          for (String server : new String[] {"lake", "reference"}) {
            int port = server.equals("lake") ? lake.lanceRestPort() : reference.getPort();
            measure(op, clients, server, port, seconds);
          }
        }
      }
    }
  }

  private static void seed(BufferAllocator allocator, int port) throws Exception {
    try (RestNamespace ns = (RestNamespace) LanceNamespace.connect("rest",
        Map.of("uri", "http://127.0.0.1:" + port), allocator)) {
      ns.createNamespace(new CreateNamespaceRequest().id(List.of("robots")));
      Schema schema = new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true))));
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
          ArrowStreamWriter w = new ArrowStreamWriter(root, null, java.nio.channels.Channels.newChannel(bytes))) {
        for (int i = 0; i < 1000; i++) {
          ((BigIntVector) root.getVector(0)).setSafe(i, i);
        }
        root.setRowCount(1000);
        w.start();
        w.writeBatch();
        w.end();
      }
      for (int t = 0; t < 10; t++) {
        try (ArrowReader r = new ArrowStreamReader(new java.io.ByteArrayInputStream(bytes.toByteArray()), allocator);
            Dataset d = Dataset.write().allocator(allocator).reader(r).namespaceClient(ns)
                .tableId(List.of("robots", t == 0 ? "runs" : "t" + t)).execute()) {
          d.countRows();
        }
      }
    }
  }

  private static void measure(String[] op, int clients, String server, int port, int seconds) throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + op[2]))
        .header("content-type", "application/json")
        .method(op[1], op[3] == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(op[3]))
        .build();
    for (int i = 0; i < 200; i++) { // warm-up
      check(http.send(request, HttpResponse.BodyHandlers.ofString()));
    }
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    List<Future<long[]>> results = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      results.add(pool.submit(() -> {
        long[] latencies = new long[1 << 20];
        int n = 0;
        while (System.nanoTime() < end && n < latencies.length) {
          long t0 = System.nanoTime();
          check(http.send(request, HttpResponse.BodyHandlers.ofString()));
          latencies[n++] = System.nanoTime() - t0;
        }
        return Arrays.copyOf(latencies, n);
      }));
    }
    List<Long> all = new ArrayList<>();
    for (Future<long[]> f : results) {
      for (long l : f.get()) {
        all.add(l);
      }
    }
    pool.shutdown();
    all.sort(null);
    System.out.printf("| %s | %d | %s | %.0f | %.2f | %.2f |%n", op[0], clients, server,
        all.size() / (double) seconds, all.get(all.size() / 2) / 1e6, all.get((int) (all.size() * 0.99)) / 1e6);
  }

  private static void check(HttpResponse<String> response) {
    if (response.statusCode() != 200) {
      throw new IllegalStateException(response.statusCode() + " " + response.body());
    }
  }
}
