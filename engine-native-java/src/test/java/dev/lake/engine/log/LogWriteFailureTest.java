package dev.lake.engine.log;

import static dev.lake.engine.log.LogTestData.ALL_TYPES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lake.engine.log.segment.SegmentAppender;
import dev.lake.engine.log.store.LocalObjectStore;
import dev.lake.engine.log.store.ObjectStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A segment write that fails part-way (the n-th write of the append fails) surfaces as the
 * append's {@link IOException}, while the statistics of blocks already handed to the helper
 * thread may still be running: the appender must wait for them before the batch and its own
 * scratch memory are released, leave no segment behind once closed, and leak no Arrow memory.
 */
class LogWriteFailureTest {

  private static final int[] BATCHES = {5, 40, 13, 1, 26, 100, 7, 64, 3, 200};

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 5, 17, 60, 150})
  void failedWriteLeavesNoSegmentAndNoMemory(int failingWrite) throws IOException {
    LocalObjectStore local = new LocalObjectStore(dir);
    FailingStore store = new FailingStore(local, failingWrite);
    try (RootAllocator root = new RootAllocator();
        BufferAllocator staging = root.newChildAllocator("staging", 0, Long.MAX_VALUE)) {
      try (ArrowReader reader = LogTestData.reader(ALL_TYPES, root, 0, BATCHES);
          SegmentAppender appender = new SegmentAppender(store, "data/", ALL_TYPES, 4, 2048, staging)) {
        assertThrows(IOException.class, () -> {
          while (reader.loadNextBatch()) {
            appender.append(reader.getVectorSchemaRoot());
          }
          appender.finish();
        });
      }
      assertEquals(0, staging.getAllocatedMemory(), "leaked staging memory");
    }
    assertEquals(List.of(), local.list("data/", null), "segments left behind");
  }

  /** A local store whose n-th object write (counted over all its objects) fails. */
  private static final class FailingStore implements ObjectStore {
    private final LocalObjectStore delegate;
    private final AtomicInteger writesLeft;

    FailingStore(LocalObjectStore delegate, int failingWrite) {
      this.delegate = delegate;
      this.writesLeft = new AtomicInteger(failingWrite);
    }

    @Override
    public String describe(String key) {
      return delegate.describe(key);
    }

    @Override
    public boolean putIfAbsent(String key, byte[] bytes) throws IOException {
      return delegate.putIfAbsent(key, bytes);
    }

    @Override
    public ObjectWriter create(String key) throws IOException {
      ObjectWriter out = delegate.create(key);
      return new ObjectWriter() {
        @Override
        public void write(ByteBuffer... buffers) throws IOException {
          if (writesLeft.decrementAndGet() == 0) {
            throw new IOException("injected write failure");
          }
          out.write(buffers);
        }

        @Override
        public long position() {
          return out.position();
        }

        @Override
        public long commit() throws IOException {
          return out.commit();
        }

        @Override
        public void close() throws IOException {
          out.close();
        }
      };
    }

    @Override
    public Optional<byte[]> get(String key) throws IOException {
      return delegate.get(key);
    }

    @Override
    public ReadableObject open(String key) throws IOException {
      return delegate.open(key);
    }

    @Override
    public List<ObjectInfo> list(String prefix, String startAfter) throws IOException {
      return delegate.list(prefix, startAfter);
    }

    @Override
    public void delete(String key) throws IOException {
      delegate.delete(key);
    }

    @Override
    public void deleteAll() throws IOException {
      delegate.deleteAll();
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
