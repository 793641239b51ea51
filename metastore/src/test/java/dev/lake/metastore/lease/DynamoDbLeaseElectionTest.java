package dev.lake.metastore.lease;

import dev.lake.metastore.MetaStore;
import dev.lake.metastore.dynamodb.Dynalite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class DynamoDbLeaseElectionTest extends LeaseElectionContract {

  static Dynalite dynalite;

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
