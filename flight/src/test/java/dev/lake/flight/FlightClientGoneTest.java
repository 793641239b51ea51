package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.AppendOperation;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.util.Optional;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.impl.FlightServiceGrpc;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that disappears in the middle of a {@code DoGet} ends its query quietly: nothing is
 * logged as an error, the query's workers stop and every buffer it held is released, and the
 * server keeps answering.
 */
@SuppressWarnings("try")
class FlightClientGoneTest {

  private static final TableIdent BIG = TableIdent.of("demo", "big");
  private static final int ROWS = 1_000_000;

  @TempDir Path directory;
  private LakeServerFixture lake;

  @BeforeEach
  void start() throws Exception {
    // The default window of bytes in flight (8 MiB): when the client goes, many written
    // messages are still queued for a stream that no longer exists.
    lake = new LakeServerFixture(directory);
    lake.registry.create(BIG, IngestData.EPISODES, "log");
    try (ArrowStreamReader rows = IngestData.stream(lake.clientAllocator(), 0, 40, ROWS / 40)) {
      lake.registry.append(BIG, Optional.empty(), new AppendOperation("default", "demo.big", UUID.randomUUID(),
          "0".repeat(64)), rows);
    }
  }

  @AfterEach
  void stop() throws Exception {
    lake.close();
  }

  @Test
  void aClientThatGoesMidStreamEndsItsQueryQuietlyAndReleasesEverything() throws Exception {
    PrintStream originalErr = System.err;
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream capture = new PrintStream(log, true, StandardCharsets.UTF_8);
    try {
      System.setErr(new PrintStream(new TeeStream(originalErr, capture), true,
          StandardCharsets.UTF_8));
      for (boolean killed : new boolean[] {false, true, false, true}) {
        vanishAfterFirstBatch("SELECT id, robot, reward * 2 FROM demo.big", killed);
        awaitNoQueryMemory();
      }
    } finally {
      System.setErr(originalErr);
    }
    String logged = log.toString(StandardCharsets.UTF_8);
    assertFalse(logged.contains("ERROR"), logged);
    assertFalse(logged.contains("Exception"), logged);
    assertEquals(List.of(List.of((long) ROWS)),
        FlightIngestValidationTest.rows(lake.client(), "SELECT count(*) FROM demo.big"));
  }

  /**
   * Plans {@code sql}, starts its DoGet and leaves at the first batch: either the client closes
   * its channel (its streams are reset), or, {@code killed}, the TCP connection is torn down
   * under it as when a client process dies (a proxy in between resets both sockets).
   */
  private void vanishAfterFirstBatch(String sql, boolean killed) throws Exception {
    FlightInfo info = lake.client().execute(sql);
    Flight.Ticket ticket = Flight.Ticket.newBuilder().setTicket(ByteString.copyFrom(
        info.getEndpoints().getFirst().getTicket().getBytes())).build();
    try (KillableProxy proxy = new KillableProxy(lake.port())) {
      ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1",
          killed ? proxy.port() : lake.port()).usePlaintext().build();
      CompletableFuture<Void> firstBatch = new CompletableFuture<>();
      FlightServiceGrpc.newStub(channel).doGet(ticket, new StreamObserver<>() {
        private int messages;

        @Override
        public void onNext(Flight.FlightData value) {
          if (++messages == 2) { // the schema, then a batch
            firstBatch.complete(null);
          }
        }

        @Override
        public void onError(Throwable t) {
          firstBatch.complete(null);
        }

        @Override
        public void onCompleted() {
          firstBatch.completeExceptionally(
              new AssertionError("the stream ended before the client left"));
        }
      });
      firstBatch.get(60, TimeUnit.SECONDS);
      if (killed) {
        proxy.kill();
      }
      channel.shutdownNow();
      assertTrue(channel.awaitTermination(10, TimeUnit.SECONDS));
    }
  }

  /** Forwards one loopback TCP connection to the server until {@link #kill()} resets it. */
  private static final class KillableProxy implements AutoCloseable {
    private final java.net.ServerSocket listener = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getLoopbackAddress());
    private final java.util.List<java.net.Socket> sockets =
        java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    private final Thread acceptor;

    KillableProxy(int target) throws java.io.IOException {
      acceptor = Thread.ofVirtual().start(() -> {
        try {
          java.net.Socket client = listener.accept();
          java.net.Socket server = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(),
              target);
          sockets.add(client);
          sockets.add(server);
          Thread.ofVirtual().start(() -> pump(client, server));
          Thread.ofVirtual().start(() -> pump(server, client));
        } catch (java.io.IOException e) {
          // closed before a client came
        }
      });
    }

    int port() {
      return listener.getLocalPort();
    }

    private static void pump(java.net.Socket from, java.net.Socket to) {
      try {
        from.getInputStream().transferTo(to.getOutputStream());
      } catch (java.io.IOException e) {
        // the proxy was killed
      }
    }

    /** Resets both connections (RST, no HTTP/2 goodbye), as a dying process's kernel does. */
    void kill() throws java.io.IOException {
      synchronized (sockets) {
        for (java.net.Socket socket : sockets) {
          if (!socket.isClosed()) {
            socket.setSoLinger(true, 0);
            socket.close();
          }
        }
      }
    }

    @Override
    public void close() throws Exception {
      listener.close();
      kill();
      acceptor.join();
    }
  }

  /**
   * Waits until no DoGet allocator is left under the server's: the query stopped and released
   * everything. Polls; the bound only keeps a broken server from hanging the build.
   */
  private void awaitNoQueryMemory() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (hasQueryAllocator(lake.root)) {
      assertTrue(System.nanoTime() < deadline, "the query still holds memory after the client"
          + " left: " + lake.root.toVerboseString());
      Thread.sleep(10);
    }
  }

  private static boolean hasQueryAllocator(BufferAllocator allocator) {
    for (BufferAllocator child : allocator.getChildAllocators()) {
      if (child.getName().startsWith("doget-") || hasQueryAllocator(child)) {
        return true;
      }
    }
    return false;
  }

  /** Writes to two streams. */
  static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream a;
    private final java.io.OutputStream b;

    TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) throws java.io.IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public void write(byte[] bytes, int off, int len) throws java.io.IOException {
      a.write(bytes, off, len);
      b.write(bytes, off, len);
    }
  }
}
