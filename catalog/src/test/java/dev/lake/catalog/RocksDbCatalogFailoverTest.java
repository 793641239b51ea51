package dev.lake.catalog;

import dev.lake.metastore.MetaStore;
import dev.lake.metastore.rocksdb.RocksDbMetaStore;

class RocksDbCatalogFailoverTest extends CatalogFailoverContract {

  @Override
  protected MetaStore newStore() {
    return RocksDbMetaStore.open(dir.resolve("meta"));
  }
}
