package dev.lake.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.ScanRequest;
import dev.lake.engine.Snapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.rest.LoopbackRestCatalog;
import org.apache.iceberg.rest.LoopbackRestCatalog.Vending;
import org.junit.jupiter.api.Test;

/**
 * Every proof of {@link IcebergS3WarehouseTest} again with lake given the S3 endpoint but no keys:
 * the catalog vends them in its LoadTable answers (as lake asks it to) with an expiry and a
 * credentials endpoint, and Iceberg's S3FileIO refreshes them there before they expire.
 */
class IcebergVendedCredentialsTest extends IcebergS3WarehouseTest {
  Vending vending;

  /** Keys S3 accepts, valid for an hour (outside Iceberg's 5-minute refresh window). */
  static Map<String, String> valid() {
    return Vending.s3(ACCESS_KEY, SECRET_KEY, Instant.now().plus(Duration.ofHours(1)));
  }

  /** Keys S3 refuses, which the catalog says expire within a minute (inside the refresh window). */
  static Map<String, String> revokedAndExpiring() {
    return Vending.s3("revoked-access", "revoked-secret", Instant.now().plus(Duration.ofMinutes(1)));
  }

  @Override
  LoopbackRestCatalog serve(String warehouse, Map<String, String> io) throws Exception {
    vending = new Vending(valid());
    return LoopbackRestCatalog.startVending(warehouse, io, vending);
  }

  /** The endpoint and region only: every key comes from the catalog. */
  @Override
  Map<String, String> io() {
    return s3();
  }

  List<List<Object>> scan() throws Exception {
    Snapshot snapshot = federation.open("ops", "robots").orElseThrow().latestSnapshot();
    return lake(snapshot, ScanRequest.of(ALL));
  }

  @Test
  void lakeAsksForVendedCredentialsAndReadsWithThem() throws Exception {
    append(rows(0, 20, 0));
    assertEquals(iceberg(table.currentSnapshot().snapshotId(), ALL), scan());
    assertTrue(vending.delegatedLoads() > 0, "lake did not send X-Iceberg-Access-Delegation");
    assertEquals(0, vending.refreshes(), "keys valid for an hour need no refresh");
  }

  /**
   * The catalog now vends keys S3 refuses, inside the refresh window; a commit makes lake's next
   * load take them. Only the keys the credentials endpoint hands out are accepted, so reading the
   * right rows at all proves they were fetched and used.
   */
  void assertReadsWithRefreshedKeys(int from, int to, int day) throws Exception {
    vending.onLoad(revokedAndExpiring());
    append(rows(from, to, day));
    assertEquals(iceberg(table.currentSnapshot().snapshotId(), ALL), scan());
    assertTrue(vending.refreshes() >= 1, "the credentials endpoint was not called");
  }

  @Test
  void credentialsInsideTheRefreshWindowAreRefreshedBeforeUse() throws Exception {
    assertReadsWithRefreshedKeys(0, 20, 0);
  }

  @Test
  void storageCredentialsForTheWarehousePrefixAreRefreshedToo() throws Exception {
    vending.asStorageCredentials("s3://warehouse/wh/");
    assertReadsWithRefreshedKeys(0, 20, 0);
  }

  @Test
  void staticKeysAreUsedAsGivenAndNoCredentialsAreAskedFor() throws Exception {
    append(rows(0, 5, 0));
    try (IcebergFederation keyed = IcebergFederation.connect(IcebergSettings.of(server.uri())
        .withProperties(super.io()).withCache(Duration.ZERO, 0))) {
      Snapshot snapshot = keyed.open("ops", "robots").orElseThrow().latestSnapshot();
      assertEquals(5, lake(snapshot, ScanRequest.of(ALL)).size());
    }
    assertEquals(0, vending.delegatedLoads());
  }

  @Test
  void aLaterScanRefreshesWhenTheCatalogNowVendsExpiringCredentials() throws Exception {
    append(rows(0, 20, 0));
    assertEquals(20, scan().size());
    assertEquals(0, vending.refreshes());
    assertReadsWithRefreshedKeys(20, 40, 1);
  }

  @Test
  void keysTheStorageRefusesFailTheScanNamingTheFileAndValidKeysReadAgain() throws Exception {
    append(rows(0, 5, 0));
    Map<String, String> wrong = Vending.s3("wrong-access", "wrong-secret", Instant.now().plus(Duration.ofHours(1)));
    vending.onLoad(wrong);
    vending.onRefresh(wrong);
    String manifests = table.currentSnapshot().manifestListLocation();
    StorageAccessDeniedException e = assertThrows(StorageAccessDeniedException.class, this::scan);
    assertTrue(e.getMessage().contains(manifests) && e.getMessage().contains("iceberg.ops.robots"), e.getMessage());
    // The catalog vends valid keys again: the next load (no commit in between) uses them.
    vending.onLoad(valid());
    vending.onRefresh(valid());
    assertEquals(5, scan().size());
  }

  @Test
  void aRefusedRefreshFailsTheScanAndTheNextLoadReadsAgain() throws Exception {
    append(rows(0, 5, 0));
    vending.onLoad(revokedAndExpiring());
    vending.refuseRefresh();
    CatalogUnavailableException e = assertThrows(CatalogUnavailableException.class, this::scan);
    assertTrue(e.getMessage().contains("Forbidden") && e.getMessage().contains("/tables/robots/credentials"),
        e.getMessage());
    assertTrue(vending.refreshes() >= 1);
    vending.onRefresh(valid());
    assertEquals(5, scan().size());
  }
}
