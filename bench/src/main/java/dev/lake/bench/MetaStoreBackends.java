package dev.lake.bench;

import dev.lake.metastore.MetaStore;
import dev.lake.metastore.dynamodb.Dynalite;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Opens a fresh metastore of one backend for a benchmark, and removes everything after. */
final class MetaStoreBackends implements AutoCloseable {

  final MetaStore store;
  private final Dynalite dynalite;
  private final Path directory;

  MetaStoreBackends(String backend) {
    switch (backend) {
      case "rocksdb" -> {
        try {
          directory = Files.createTempDirectory("lake-bench-meta");
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        dynalite = null;
        store = RocksDbMetaStore.open(directory.resolve("meta"));
      }
      case "dynalite" -> {
        directory = null;
        dynalite = Dynalite.start();
        store = dynalite.newStore();
      }
      default -> throw new IllegalArgumentException("backend is rocksdb or dynalite, got "
          + backend);
    }
  }

  @Override
  public void close() {
    store.close();
    if (dynalite != null) {
      dynalite.close();
    }
    if (directory != null) {
      try (Stream<Path> files = Files.walk(directory)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
