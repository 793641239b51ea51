package dev.lake.catalog;

import dev.lake.metastore.MetaStore;
import dev.lake.metastore.dynamodb.Dynalite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The failover contract over a real DynamoDB-compatible server (dynalite), no transactions. */
class DynamoDbCatalogFailoverTest extends CatalogFailoverContract {

  private static Dynalite dynalite;

  @BeforeAll
  static void startDynalite() {
    dynalite = Dynalite.start();
  }

  @AfterAll
  static void stopDynalite() {
    if (dynalite != null) {
      dynalite.close();
    }
  }

  @Override
  protected MetaStore newStore() {
    return dynalite.newStore();
  }
}
