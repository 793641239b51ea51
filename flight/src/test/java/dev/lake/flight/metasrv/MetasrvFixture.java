package dev.lake.flight.metasrv;

import dev.lake.engine.AppendOperation;
import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.UuidV7;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.lease.LeaseSettings;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Shared pieces of the Metasrv tests: engines, a schema, payloads, servers, waiting. */
final class MetasrvFixture {

  static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

  /** Short lease so failover happens within seconds; tests wait on conditions, not times. */
  static final LeaseSettings FAST_LEASE = new LeaseSettings(java.time.Duration.ofSeconds(3),
      java.time.Duration.ofMillis(300), java.time.Duration.ofMillis(500));

  private MetasrvFixture() {}

  static Map<String, TableEngine> engines() {
    Map<String, TableEngine> engines = new TreeMap<>();
    for (TableEngineFactory factory : ServiceLoader.load(TableEngineFactory.class)) {
      engines.put(factory.name(), factory.create(Map.of()));
    }
    return engines;
  }

  static MetasrvServer start(MetaStore store, Map<String, TableEngine> engines, Path warehouse,
      BufferAllocator allocator, String nodeId, LeaseSettings lease) {
    MetasrvServer server = MetasrvServer.builder().store(store).engines(engines)
        .warehouse(warehouse).allocator(allocator).nodeId(nodeId).lease(lease)
        .workerThreads(2).build();
    server.start();
    return server;
  }

  /** {@code rows} rows with ids from {@code first}, as an IPC stream reader (caller closes). */
  static ArrowReader rows(BufferAllocator allocator, long first, int rows) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, out)) {
      BigIntVector id = (BigIntVector) root.getVector("id");
      VarCharVector name = (VarCharVector) root.getVector("name");
      root.allocateNew();
      for (int i = 0; i < rows; i++) {
        id.setSafe(i, first + i);
        name.setSafe(i, ("robot-" + (first + i)).getBytes(StandardCharsets.UTF_8));
      }
      root.setRowCount(rows);
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), allocator);
  }

  static AppendOperation operation(UUID id, String payloadTag) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(payloadTag.getBytes(StandardCharsets.UTF_8));
      return AppendOperation.of("default", "lake.robots.episodes", id, digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static AppendOperation operation(String payloadTag) {
    return operation(UuidV7.generate(), payloadTag);
  }

  /** Waits for {@code condition}, generously (the machine may be loaded). */
  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(50);
    }
  }
}
