package dev.lake.metastore.rocksdb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lake.metastore.MetaStore;
import dev.lake.metastore.MetaStoreContract;
import dev.lake.metastore.MetaStoreException;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksDbMetaStoreTest extends MetaStoreContract {

  @TempDir Path directory;

  @Override
  protected MetaStore newStore() {
    return RocksDbMetaStore.open(directory.resolve("meta"));
  }

  @Test
  void writesSurviveReopen() {
    store.compareAndSet("tbl/a/b", Optional.empty(), bytes("record"));
    store.close();
    store = RocksDbMetaStore.open(directory.resolve("meta"));
    assertArrayEquals(bytes("record"), store.get("tbl/a/b").orElseThrow());
  }

  @Test
  void secondOpenOfTheSameDirectoryIsRefusedClearly() {
    MetaStoreException e = assertThrows(MetaStoreException.class,
        () -> RocksDbMetaStore.open(directory.resolve("meta")));
    org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("cannot open"));
  }
}
