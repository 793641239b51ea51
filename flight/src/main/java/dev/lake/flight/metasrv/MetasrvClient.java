package dev.lake.flight.metasrv;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lake.catalog.RegistrySnapshot;
import dev.lake.catalog.RegistryUnavailableException;
import dev.lake.catalog.TableEntry;
import dev.lake.catalog.TableIdent;
import dev.lake.catalog.TableRegistry;
import dev.lake.engine.AppendOperation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.FlightCallHeaders;
import dev.lake.flight.auth.ServiceCredentials;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SyncPutListener;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The registry authority over the network: every {@link TableRegistry} call goes to a Metasrv
 * replica (whichever answers; followers forward to the leader) with Arrow's {@link FlightClient}.
 *
 * <p>A replica answering {@code UNAVAILABLE} (not leading, no leader known, unreachable), or a
 * connection lost mid-call ({@code UNKNOWN} without lake's trailers: the replica died), makes
 * the client try the next endpoint, round after round with a growing pause, until the retry
 * window ends; then {@link RegistryUnavailableException}. A write is retried with the same
 * operation id and payload, so a retry after a lost reply is exactly-once (the authority returns
 * the original result). Every other refusal is rethrown as the catalog's precise exception
 * ({@link dev.lake.catalog.TableNotFoundException}, {@link
 * dev.lake.catalog.TableAlreadyExistsException}, ...) and changed nothing.
 *
 * <p>Append payloads (the batches) are read into memory once, bounded by 64 MiB: they carry
 * metadata rows only. Thread-safe.
 */
public final class MetasrvClient implements TableRegistry, AutoCloseable {

  /** The most one append stream carries. */
  public static final long MAX_STREAM_BYTES = 64L << 20;
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

  private final List<Location> endpoints;
  private final BufferAllocator allocator;
  private final Duration retryFor;
  private final CallOption[] options;
  private final FlightClient[] clients;
  private final ServiceCredentials credentials;
  private volatile int preferred;

  private MetasrvClient(List<URI> endpoints, BufferAllocator allocator, Duration retryFor,
      boolean forwarding, ServiceCredentials credentials) {
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("a Metasrv client needs at least one endpoint");
    }
    this.credentials = credentials;
    this.endpoints = endpoints.stream()
        .map(uri -> {
          location(uri);
          return credentials.location(uri.getHost(), uri.getPort());
        })
        .toList();
    this.allocator = allocator.newChildAllocator("metasrv-client", 0, Long.MAX_VALUE);
    this.retryFor = retryFor;
    this.clients = new FlightClient[endpoints.size()];
    List<CallOption> callOptions = new ArrayList<>();
    callOptions.add(CallOptions.timeout(CALL_TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS));
    FlightCallHeaders headers = new FlightCallHeaders();
    if (forwarding) {
      headers.insert(MetasrvProtocol.FORWARDED_HEADER, "1");
    }
    if (credentials.token() != null) {
      headers.insert("authorization", "Bearer " + credentials.token());
    }
    if (forwarding || credentials.token() != null) {
      callOptions.add(new HeaderCallOption(headers));
    }
    this.options = callOptions.toArray(CallOption[]::new);
  }

  /**
   * The call options, with the end principal and the trace context of the call this one serves,
   * if any.
   */
  private CallOption[] options() {
    var caller = dev.lake.flight.auth.Grants.caller();
    var traceparent = dev.lake.flight.ops.TraceParent.current();
    if (caller.isEmpty() && traceparent.isEmpty()) {
      return options;
    }
    FlightCallHeaders headers = new FlightCallHeaders();
    caller.ifPresent(principal -> headers.insert(dev.lake.flight.auth.PrincipalHeader.NAME,
        dev.lake.flight.auth.PrincipalHeader.encode(principal)));
    traceparent.ifPresent(value -> headers.insert(dev.lake.flight.ops.TraceParent.HEADER, value));
    CallOption[] all = java.util.Arrays.copyOf(options, options.length + 1);
    all[options.length] = new HeaderCallOption(headers);
    return all;
  }

  /**
   * A client of the Metasrv replicas at {@code endpoints} ({@code grpc://host:port}, see {@link
   * #endpoints(String)}), retrying unavailable replicas for up to 30 s per call. Connects lazily.
   */
  public static MetasrvClient connect(List<URI> endpoints, BufferAllocator allocator) {
    return connect(endpoints, allocator, Duration.ofSeconds(30));
  }

  /** As {@link #connect(List, BufferAllocator)}, retrying for up to {@code retryFor} per call. */
  public static MetasrvClient connect(List<URI> endpoints, BufferAllocator allocator,
      Duration retryFor) {
    return connect(endpoints, allocator, retryFor, ServiceCredentials.NONE);
  }

  /**
   * As {@link #connect(List, BufferAllocator, Duration)}, every call carrying the service token
   * and going over TLS when {@code credentials} name a CA.
   */
  public static MetasrvClient connect(List<URI> endpoints, BufferAllocator allocator,
      Duration retryFor, ServiceCredentials credentials) {
    return new MetasrvClient(List.copyOf(endpoints), allocator, retryFor, false, credentials);
  }

  /** A follower's client of the leader: one attempt, marked forwarded so it is not forwarded again. */
  static MetasrvClient forwarding(URI leader, BufferAllocator allocator,
      ServiceCredentials credentials) {
    return new MetasrvClient(List.of(leader), allocator, Duration.ZERO, true, credentials);
  }

  /**
   * The endpoints of {@code host:port[,host:port...]}, as {@code grpc://} URIs.
   *
   * @throws IllegalArgumentException naming the entry that is not host:port
   */
  public static List<URI> endpoints(String list) {
    List<URI> uris = new ArrayList<>();
    for (String part : list.split(",")) {
      String entry = part.strip();
      URI uri;
      try {
        uri = new URI("grpc://" + entry);
      } catch (java.net.URISyntaxException e) {
        throw new IllegalArgumentException("a Metasrv endpoint is host:port, got '" + entry + "'");
      }
      location(uri);
      uris.add(uri);
    }
    return List.copyOf(uris);
  }

  private static Location location(URI uri) {
    if (uri.getHost() == null || uri.getPort() < 0) {
      throw new IllegalArgumentException("a Metasrv endpoint is grpc://host:port, got " + uri);
    }
    return Location.forGrpcInsecure(uri.getHost(), uri.getPort());
  }

  // ---- reads -------------------------------------------------------------------------------

  @Override
  public List<String> engineNames() {
    JsonNode result = action(MetasrvProtocol.ENGINES, MetasrvProtocol.object(),
        MetasrvStatus.Subject.NONE);
    List<String> names = new ArrayList<>();
    result.path("engines").forEach(n -> names.add(n.asText()));
    return List.copyOf(names);
  }

  @Override
  public RegistrySnapshot snapshot() {
    return MetasrvProtocol.decodeSnapshot(action(MetasrvProtocol.SNAPSHOT, MetasrvProtocol.object(),
        MetasrvStatus.Subject.NONE));
  }

  @Override
  public Optional<RegistrySnapshot> snapshotIfChanged(long generation) {
    JsonNode result = action(MetasrvProtocol.SNAPSHOT,
        MetasrvProtocol.object().put("generation", generation), MetasrvStatus.Subject.NONE);
    return result.path("not_modified").asBoolean(false) ? Optional.empty()
        : Optional.of(MetasrvProtocol.decodeSnapshot(result));
  }

  @Override
  public Optional<TableEntry> lookup(TableIdent ident) {
    JsonNode result = action(MetasrvProtocol.LOOKUP, MetasrvProtocol.ident(ident),
        MetasrvStatus.Subject.of(ident));
    return result.has("entry") ? Optional.of(MetasrvProtocol.decodeEntry(result.get("entry")))
        : Optional.empty();
  }

  // ---- directory writes ----------------------------------------------------------------------

  @Override
  public void createNamespace(String namespace) {
    action(MetasrvProtocol.CREATE_NAMESPACE, MetasrvProtocol.object().put("namespace", namespace),
        MetasrvStatus.Subject.of(namespace));
  }

  @Override
  public void dropNamespace(String namespace, boolean cascade) {
    action(MetasrvProtocol.DROP_NAMESPACE, MetasrvProtocol.object().put("namespace", namespace)
        .put("cascade", cascade), MetasrvStatus.Subject.of(namespace));
  }

  @Override
  public TableEntry create(TableIdent ident, Schema schema, String engine) {
    ObjectNode body = MetasrvProtocol.schema(MetasrvProtocol.ident(ident), schema)
        .put("engine", engine);
    return MetasrvProtocol.decodeEntry(action(MetasrvProtocol.CREATE_TABLE, body,
        MetasrvStatus.Subject.of(ident)).get("entry"));
  }

  @Override
  public TableEntry replaceWithEmpty(TableIdent ident, Schema schema) {
    ObjectNode body = MetasrvProtocol.schema(MetasrvProtocol.ident(ident), schema);
    return MetasrvProtocol.decodeEntry(action(MetasrvProtocol.REPLACE_WITH_EMPTY, body,
        MetasrvStatus.Subject.of(ident)).get("entry"));
  }

  @Override
  public void drop(TableIdent ident) {
    action(MetasrvProtocol.DROP_TABLE, MetasrvProtocol.ident(ident),
        MetasrvStatus.Subject.of(ident));
  }

  // ---- append streams --------------------------------------------------------------------------

  @Override
  public TableEntry createWith(TableIdent ident, Schema schema, String engine,
      AppendOperation operation, ArrowReader batches) {
    return put(MetasrvProtocol.PutKind.CREATE_WITH, ident, Optional.empty(), Optional.of(engine),
        Optional.of(schema), operation, batches);
  }

  @Override
  public TableEntry append(TableIdent ident, Optional<UUID> incarnation,
      AppendOperation operation, ArrowReader batches) {
    return put(MetasrvProtocol.PutKind.APPEND, ident, incarnation, Optional.empty(),
        Optional.empty(), operation, batches);
  }

  @Override
  public TableEntry replace(TableIdent ident, Schema schema, AppendOperation operation,
      ArrowReader batches) {
    return put(MetasrvProtocol.PutKind.REPLACE, ident, Optional.empty(), Optional.empty(),
        Optional.of(schema), operation, batches);
  }

  /**
   * Closes the connections. Batches of calls in progress are released by those calls.
   */
  @Override
  public void close() {
    synchronized (clients) {
      for (int i = 0; i < clients.length; i++) {
        if (clients[i] != null) {
          try {
            clients[i].close();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          clients[i] = null;
        }
      }
    }
    allocator.close();
  }

  private TableEntry put(MetasrvProtocol.PutKind kind, TableIdent ident,
      Optional<UUID> incarnation, Optional<String> engine, Optional<Schema> schema,
      AppendOperation operation, ArrowReader batches) {
    try (Payload payload = Payload.read(batches, allocator)) {
      byte[] command = MetasrvProtocol.encode(new MetasrvProtocol.PutCommand(kind, ident,
          incarnation, engine, schema, operation, payload.sha256));
      return call(MetasrvStatus.Subject.of(ident), client -> putOnce(client, command, payload));
    }
  }

  private TableEntry putOnce(FlightClient client, byte[] command, Payload payload) {
    VectorSchemaRoot root = payload.root;
    SyncPutListener listener = new SyncPutListener();
    FlightClient.ClientStreamListener stream =
        client.startPut(FlightDescriptor.command(command), root, listener, options());
    VectorLoader loader = new VectorLoader(root);
    for (ArrowRecordBatch batch : payload.batches) {
      loader.load(batch);
      stream.putNext();
    }
    stream.completed();
    stream.getResult();
    try {
      PutResult result = listener.read();
      if (result == null) {
        throw new IllegalStateException("Metasrv ended the append without a result");
      }
      try (ArrowBuf metadata = result.getApplicationMetadata()) {
        byte[] bytes = new byte[(int) metadata.readableBytes()];
        metadata.getBytes(0, bytes);
        return MetasrvProtocol.decodeEntry(MetasrvProtocol.parse(bytes, "append result"));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RegistryUnavailableException("interrupted waiting for Metasrv", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof FlightRuntimeException f ? f
          : new IllegalStateException("the append result failed", e.getCause());
    } finally {
      listener.close();
    }
  }

  private JsonNode action(String type, ObjectNode body, MetasrvStatus.Subject subject) {
    byte[] bytes = MetasrvProtocol.bytes(body);
    return call(subject, client -> {
      Iterator<Result> results = client.doAction(new Action(type, bytes), options());
      byte[] answer = null;
      while (results.hasNext()) {
        byte[] next = results.next().getBody();
        if (answer == null) {
          answer = next;
        }
      }
      if (answer == null) {
        throw new IllegalStateException("Metasrv answered " + type + " without a result");
      }
      return MetasrvProtocol.parse(answer, type + " result");
    });
  }

  private <T> T call(MetasrvStatus.Subject subject, Function<FlightClient, T> attempt) {
    long deadline = System.nanoTime() + retryFor.toNanos();
    FlightRuntimeException last = null;
    long pause = 25;
    while (true) {
      int start = preferred;
      for (int i = 0; i < endpoints.size(); i++) {
        int index = (start + i) % endpoints.size();
        try {
          T result = attempt.apply(client(index));
          preferred = index;
          return result;
        } catch (FlightRuntimeException e) {
          if (e.status().code() != FlightStatusCode.UNAVAILABLE
              && !MetasrvStatus.isLostConnection(e)) {
            throw MetasrvStatus.toException(e, subject);
          }
          last = e;
        }
      }
      if (System.nanoTime() >= deadline) {
        throw new RegistryUnavailableException("no Metasrv replica of " + endpoints.stream()
            .map(l -> l.getUri().getAuthority()).toList() + " could serve the call"
            + (retryFor.isZero() ? "" : " within " + retryFor.toMillis() + " ms") + ": "
            + last.status().description(), last);
      }
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RegistryUnavailableException("interrupted while retrying Metasrv", e);
      }
      pause = Math.min(1_000, pause * 2);
    }
  }

  private FlightClient client(int index) {
    synchronized (clients) {
      if (clients[index] == null) {
        clients[index] = credentials.configure(FlightClient.builder(allocator,
            endpoints.get(index))).build();
      }
      return clients[index];
    }
  }

  /** An append's batches in memory, with the digest of their IPC messages as sent. */
  private static final class Payload implements AutoCloseable {
    final VectorSchemaRoot root;
    final List<ArrowRecordBatch> batches;
    final String sha256;

    private Payload(VectorSchemaRoot root, List<ArrowRecordBatch> batches, String sha256) {
      this.root = root;
      this.batches = batches;
      this.sha256 = sha256;
    }

    static Payload read(ArrowReader reader, BufferAllocator allocator) {
      List<ArrowRecordBatch> batches = new ArrayList<>();
      VectorSchemaRoot root = null;
      try {
        VectorSchemaRoot source = reader.getVectorSchemaRoot();
        root = VectorSchemaRoot.create(source.getSchema(), allocator);
        PayloadDigest digest = new PayloadDigest();
        digest.update(root.getSchema());
        long bytes = 0;
        while (reader.loadNextBatch()) {
          ArrowRecordBatch batch = new VectorUnloader(source).getRecordBatch();
          batches.add(batch);
          bytes += digest.update(batch);
          if (bytes > MAX_STREAM_BYTES) {
            throw new IllegalArgumentException("the append carries more than " + MAX_STREAM_BYTES
                + " bytes; appends through Metasrv carry metadata rows only, split it");
          }
        }
        return new Payload(root, batches, digest.hex());
      } catch (IOException e) {
        close(root, batches);
        throw new UncheckedIOException(e);
      } catch (RuntimeException e) {
        close(root, batches);
        throw e;
      }
    }

    @Override
    public void close() {
      close(root, batches);
    }

    private static void close(VectorSchemaRoot root, List<ArrowRecordBatch> batches) {
      batches.forEach(ArrowRecordBatch::close);
      batches.clear();
      if (root != null) {
        root.close();
      }
    }
  }
}
