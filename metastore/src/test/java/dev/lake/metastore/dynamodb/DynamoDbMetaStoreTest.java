package dev.lake.metastore.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.metastore.MetaStore;
import dev.lake.metastore.MetaStoreContract;
import dev.lake.metastore.MetaStoreException;
import dev.lake.metastore.ScanPage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The metastore contract against dynalite through the real AWS SDK v2 client. */
class DynamoDbMetaStoreTest extends MetaStoreContract {

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

  @Override
  protected int casAttemptsPerThread() {
    return 40;
  }

  @Test
  void openingAMissingTableNamesTheInitCommand() {
    MetaStoreException e = assertThrows(MetaStoreException.class,
        () -> DynamoDbMetaStore.open(dynalite.settings("no-such-table")));
    assertTrue(e.getMessage().contains("lake metastore init --table no-such-table"),
        e.getMessage());
  }

  @Test
  void createIsIdempotentAndKeepsTheData() {
    DynamoDbSettings settings = dynalite.settings("lake-idempotent");
    assertEquals(DynamoDbTables.Outcome.CREATED, DynamoDbTables.create(settings));
    try (DynamoDbMetaStore first = DynamoDbMetaStore.open(settings)) {
      first.compareAndSet("tbl/a/b", Optional.empty(), bytes("kept"));
    }
    assertEquals(DynamoDbTables.Outcome.ALREADY_EXISTS, DynamoDbTables.create(settings));
    try (DynamoDbMetaStore again = DynamoDbMetaStore.open(settings)) {
      assertEquals("kept", new String(again.get("tbl/a/b").orElseThrow(),
          java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  @Test
  void scanSpanningMorePartitionsThanOneDirectoryPageListsThemAllInOrder() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 130; i++) {
      keys.add(String.format("n%03d/x", i));
    }
    keys.forEach(k -> store.compareAndSet(k, Optional.empty(), bytes(k)));
    for (int limit : new int[] {7, 1000}) {
      List<String> seen = new ArrayList<>();
      Optional<String> continuation = Optional.empty();
      do {
        ScanPage page = store.scan("n", continuation, limit);
        page.entries().forEach(e -> seen.add(e.key()));
        continuation = page.continuation();
      } while (continuation.isPresent());
      assertEquals(keys, seen);
    }
  }

  @Test
  void partitionIsTheKeyUpToItsSecondSlash() {
    assertEquals("tbl/ns/", DynamoDbLayout.partitionOf("tbl/ns/name"));
    assertEquals("op/tenant/", DynamoDbLayout.partitionOf("op/tenant/ns/name/op-1"));
    assertEquals("gen/directory", DynamoDbLayout.partitionOf("gen/directory"));
    assertEquals("counter", DynamoDbLayout.partitionOf("counter"));
    assertEquals(Optional.of("tbl/ns/"), DynamoDbLayout.partitionOfPrefix("tbl/ns/"));
    assertEquals(Optional.of("tbl/ns/"), DynamoDbLayout.partitionOfPrefix("tbl/ns/na"));
    assertEquals(Optional.empty(), DynamoDbLayout.partitionOfPrefix("tbl/ns"));
    assertEquals(Optional.empty(), DynamoDbLayout.partitionOfPrefix("tbl/"));
    assertEquals(Optional.empty(), DynamoDbLayout.partitionOfPrefix(""));
  }
}
