package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.lake.catalog.CatalogCache;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.flight.metasrv.MetasrvClient;
import dev.lake.flight.metasrv.MetasrvServer;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import dev.lake.sql.SqlEngine;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * W3C trace context: a server span per call, the child of the stock client's {@code traceparent},
 * with the gRPC status and no SQL text; malformed context ignored; opt-in OTLP/HTTP export.
 */
class FlightTracingTest {

  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String PARENT = "00f067aa0ba902b7";
  private static final AttributeKey<Long> STATUS = AttributeKey.longKey("rpc.grpc.status_code");

  @TempDir Path directory;
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final OpenTelemetrySdk telemetry = OpenTelemetrySdk.builder().setTracerProvider(
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
      .build();
  private LakeServerFixture lake;

  @AfterEach
  void stop() throws Exception {
    if (lake != null) {
      lake.close();
    }
    telemetry.close();
  }

  private static CallOption traceparent(String value) {
    FlightCallHeaders headers = new FlightCallHeaders();
    headers.insert("traceparent", value);
    return new HeaderCallOption(headers);
  }

  private static void query(FlightSqlClient client, String sql, CallOption... options)
      throws Exception {
    FlightInfo info = client.execute(sql, options);
    try (FlightStream stream = client.getStream(info.getEndpoints().getFirst().getTicket(),
        options)) {
      while (stream.next()) {
        assertTrue(stream.getRoot().getRowCount() >= 0);
      }
    }
  }

  /** The spans ended so far, waiting (on the condition) until at least {@code count} have. */
  private List<SpanData> awaitSpans(int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (spans.getFinishedSpanItems().size() < count && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    List<SpanData> ended = spans.getFinishedSpanItems();
    assertTrue(ended.size() >= count, ended.toString());
    return ended;
  }

  private static SpanData named(List<SpanData> ended, String method) {
    return ended.stream().filter(s -> s.getName().endsWith("/" + method)).findFirst()
        .orElseThrow(() -> new AssertionError("no " + method + " span in " + ended));
  }

  @Test
  void everyCallIsAServerSpanChildOfTheClientsTraceparent() throws Exception {
    lake = new LakeServerFixture(directory, LakeFlightServer.builder().tracing(telemetry));
    CallOption context = traceparent("00-" + TRACE + "-" + PARENT + "-01");
    query(lake.client(), "SELECT 'secret-literal' AS s", context);
    List<SpanData> ended = awaitSpans(2);
    for (String method : List.of("GetFlightInfo", "DoGet")) {
      SpanData span = named(ended, method);
      assertEquals("arrow.flight.protocol.FlightService/" + method, span.getName());
      assertEquals(TRACE, span.getTraceId());
      assertEquals(PARENT, span.getParentSpanId());
      assertEquals(SpanKind.SERVER, span.getKind());
      assertEquals(0L, span.getAttributes().get(STATUS));
      assertEquals("grpc", span.getAttributes().get(AttributeKey.stringKey("rpc.system")));
      assertEquals(method, span.getAttributes().get(AttributeKey.stringKey("rpc.method")));
      assertFalse(span.getAttributes().toString().contains("secret-literal"),
          "no SQL text in a span: " + span.getAttributes());
    }
    String scrape = lake.server.metrics().scrape();
    assertTrue(scrape.contains("lake_grpc_calls_total{method=\"/arrow.flight.protocol.FlightService/DoGet\""),
        "calls are still counted beside their spans: " + scrape);
  }

  @Test
  void aFailedCallIsAnErrorSpanWithItsStatus() throws Exception {
    lake = new LakeServerFixture(directory, LakeFlightServer.builder().tracing(telemetry));
    assertThrows(FlightRuntimeException.class, () -> lake.client().execute("SELEC 1",
        traceparent("00-" + TRACE + "-" + PARENT + "-01")));
    SpanData span = named(awaitSpans(1), "GetFlightInfo");
    assertEquals(3L, span.getAttributes().get(STATUS), "INVALID_ARGUMENT");
    assertEquals(StatusCode.ERROR, span.getStatus().getStatusCode());
    assertEquals(TRACE, span.getTraceId());
  }

  @Test
  void withoutOrWithAMalformedTraceparentACallStartsItsOwnTrace() throws Exception {
    lake = new LakeServerFixture(directory, LakeFlightServer.builder().tracing(telemetry));
    query(lake.client(), "SELECT 1");
    for (String bad : List.of("garbage", "00-" + TRACE + "-" + PARENT, "00-"
        + "0".repeat(32) + "-" + PARENT + "-01", "00-" + TRACE.toUpperCase() + "x-" + PARENT + "-01")) {
      query(lake.client(), "SELECT 1", traceparent(bad));
    }
    List<SpanData> ended = awaitSpans(10);
    for (SpanData span : ended) {
      assertFalse(span.getParentSpanContext().isValid(), span.toString());
      assertFalse(TRACE.equals(span.getTraceId()));
    }
    assertEquals(10, ended.stream().map(SpanData::getTraceId).distinct().count(),
        "each call its own trace");
  }

  @Test
  void otlpExportPostsTheSpansToTheCollector() throws Exception {
    List<byte[]> posts = new CopyOnWriteArrayList<>();
    List<String> types = new CopyOnWriteArrayList<>();
    HttpServer collector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    collector.createContext("/v1/traces", exchange -> {
      types.add(String.valueOf(exchange.getRequestHeaders().getFirst("Content-Type")));
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      exchange.getRequestBody().transferTo(body);
      posts.add(body.toByteArray());
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    collector.start();
    try {
      lake = new LakeServerFixture(directory, LakeFlightServer.builder()
          .otlpTraces(URI.create("http://127.0.0.1:" + collector.getAddress().getPort())));
      query(lake.client(), "SELECT 1", traceparent("00-" + TRACE + "-" + PARENT + "-01"));
      lake.close(); // flushes the batch
      lake = null;
      assertFalse(posts.isEmpty(), "the collector received the spans");
      assertTrue(types.stream().allMatch(t -> t.startsWith("application/x-protobuf")), types.toString());
      byte[] trace = HexFormat.of().parseHex(TRACE);
      assertTrue(posts.stream().anyMatch(body -> contains(body, trace)),
          "a posted span carries the client's trace id");
    } finally {
      collector.stop(0);
    }
  }

  @Test
  void writesContinueTheTraceIntoMetasrv() throws Exception {
    Map<String, TableEngine> engines = new TreeMap<>();
    for (TableEngineFactory factory : ServiceLoader.load(TableEngineFactory.class)) {
      engines.put(factory.name(), factory.create(Map.of()));
    }
    try (BufferAllocator root = new RootAllocator();
        RocksDbMetaStore store = RocksDbMetaStore.open(directory.resolve("meta"))) {
      MetasrvServer metasrv = MetasrvServer.builder().store(store).engines(engines)
          .warehouse(directory.resolve("warehouse")).allocator(root).nodeId("solo")
          .workerThreads(2).tracing(telemetry).build();
      metasrv.start();
      MetasrvClient authority = MetasrvClient.connect(
          MetasrvClient.endpoints("127.0.0.1:" + metasrv.port()), root);
      CatalogCache cache = CatalogCache.start(authority, engines);
      LakeFlightServer query = LakeFlightServer.builder().registry(cache)
          .sqlEngine(new SqlEngine(new CatalogSqlCatalog(cache, Map.of()), Long.MAX_VALUE, 2))
          .allocator(root).workerThreads(2).tracing(telemetry).build();
      query.start();
      try (FlightSqlClient client = new FlightSqlClient(FlightClient.builder(root,
          Location.forGrpcInsecure("127.0.0.1", query.port())).build())) {
        client.executeUpdate("CREATE SCHEMA traced", traceparent("00-" + TRACE + "-" + PARENT + "-01"));
        client.executeUpdate("CREATE TABLE traced.t (id BIGINT)",
            traceparent("00-" + TRACE + "-" + PARENT + "-01"));
        client.executeUpdate("INSERT INTO traced.t VALUES (1), (2)",
            traceparent("00-" + TRACE + "-" + PARENT + "-01"));
        // The query tier's spans: children of the client's; Metasrv's: children of those.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<SpanData> hops = List.of();
        while (System.nanoTime() < deadline) {
          List<SpanData> ended = spans.getFinishedSpanItems();
          java.util.Set<String> queryCalls = ended.stream()
              .filter(span -> PARENT.equals(span.getParentSpanId()))
              .map(SpanData::getSpanId).collect(java.util.stream.Collectors.toSet());
          hops = ended.stream().filter(span -> queryCalls.contains(span.getParentSpanId())).toList();
          if (hops.size() >= 3) {
            break;
          }
          Thread.sleep(5);
        }
        assertTrue(hops.size() >= 3, "each write reached Metasrv inside the client's trace: "
            + spans.getFinishedSpanItems());
        for (SpanData hop : hops) {
          assertEquals(TRACE, hop.getTraceId());
          assertEquals(SpanKind.SERVER, hop.getKind());
        }
        // An untraced write starts its own trace at the query tier and Metasrv joins that one.
        spans.reset();
        client.executeUpdate("INSERT INTO traced.t VALUES (3)");
        List<SpanData> own = awaitSpans(2);
        SpanData top = own.stream().filter(span -> !span.getParentSpanContext().isValid())
            .findFirst().orElseThrow(() -> new AssertionError(own.toString()));
        assertTrue(own.stream().anyMatch(span -> top.getSpanId().equals(span.getParentSpanId())
            && top.getTraceId().equals(span.getTraceId())), own.toString());
      } finally {
        query.close();
        cache.close();
        authority.close();
        metasrv.close();
        engines.values().forEach(TableEngine::close);
      }
    }
  }

  @Test
  void aCarelessOtlpEndpointIsRefusedNamingIt() {
    for (String bad : List.of("ftp://collector:4318", "collector:4318", "http:///v1/traces")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> LakeFlightServer.builder().otlpTraces(URI.create(bad)));
      assertTrue(e.getMessage().contains(bad), e.getMessage());
    }
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
