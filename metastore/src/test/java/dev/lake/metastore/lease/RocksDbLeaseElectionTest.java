package dev.lake.metastore.lease;

import dev.lake.metastore.MetaStore;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class RocksDbLeaseElectionTest extends LeaseElectionContract {

  @TempDir Path directory;

  @Override
  protected MetaStore newStore() {
    return RocksDbMetaStore.open(directory.resolve("meta"));
  }
}
