package dev.lake.flight.ticket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.flight.auth.Principal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TicketSealerTest {

  private static final Principal ALICE =
      new Principal("alice", "lab", Principal.Role.READER, Set.of("demo"));
  private static final List<SnapshotPin> PINS = List.of(
      new SnapshotPin("demo", "episodes", "log", "file:/w/demo/episodes-1", UUID.randomUUID(), 7),
      new SnapshotPin("ext", "t", null, null, null, 3));
  private static final byte[] PAYLOAD = "inner ticket bytes".getBytes(StandardCharsets.UTF_8);

  @TempDir Path directory;

  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));

  private TicketSealer sealer(KeyRing ring, String audience) {
    return new TicketSealer(() -> ring, audience, clock, Duration.ofHours(1), Duration.ofHours(24));
  }

  @Test
  void sealedTicketOpensToItsClaimsAndHidesThem() {
    TicketSealer sealer = sealer(KeyRing.generate("k1"), "cluster-a");
    byte[] envelope = sealer.seal(TicketSealer.Kind.TICKET, ALICE, PINS, PAYLOAD);
    TicketSealer.Opened opened = sealer.open(TicketSealer.Kind.TICKET, envelope, ALICE);
    assertEquals("alice", opened.principal());
    assertEquals("lab", opened.tenant());
    assertEquals(PINS, opened.pins());
    assertArrayEquals(PAYLOAD, opened.payload());
    assertEquals(clock.instant(), opened.issuedAt());
    assertEquals(clock.instant().plus(Duration.ofHours(1)), opened.expiresAt());
    String visible = new String(envelope, StandardCharsets.ISO_8859_1);
    assertFalse(visible.contains("inner ticket") || visible.contains("alice")
        || visible.contains("episodes"), "the claims travel encrypted");
    assertTrue(visible.contains("k1") && visible.contains("cluster-a"), "key id and audience in clear");
    assertFalse(Arrays.equals(envelope, sealer.seal(TicketSealer.Kind.TICKET, ALICE, PINS, PAYLOAD)),
        "a fresh nonce per envelope");
  }

  @Test
  void everyAlteredOrCutByteIsRefusedNeverOpened() {
    TicketSealer sealer = sealer(KeyRing.generate("k1"), "cluster-a");
    byte[] envelope = sealer.seal(TicketSealer.Kind.TICKET, ALICE, PINS, PAYLOAD);
    for (int i = 0; i < envelope.length; i++) {
      byte[] altered = envelope.clone();
      altered[i] ^= 0x01;
      TicketRefusedException e = assertThrows(TicketRefusedException.class,
          () -> sealer.open(TicketSealer.Kind.TICKET, altered, ALICE), "byte " + i);
      assertNotEquals(TicketRefusedException.Reason.EXPIRED, e.reason(), "byte " + i);
    }
    for (int length = 0; length < envelope.length; length++) {
      byte[] cut = Arrays.copyOf(envelope, length);
      TicketRefusedException e = assertThrows(TicketRefusedException.class,
          () -> sealer.open(TicketSealer.Kind.TICKET, cut, ALICE), "length " + length);
      assertTrue(Set.of(TicketRefusedException.Reason.MALFORMED, TicketRefusedException.Reason.FORGED)
          .contains(e.reason()), "length " + length + ": " + e.reason());
    }
    byte[] last = envelope.clone();
    last[last.length - 1] ^= 0x40;
    assertEquals(TicketRefusedException.Reason.FORGED, assertThrows(TicketRefusedException.class,
        () -> sealer.open(TicketSealer.Kind.TICKET, last, ALICE)).reason());
    assertEquals(TicketRefusedException.Reason.MALFORMED, assertThrows(TicketRefusedException.class,
        () -> sealer.open(TicketSealer.Kind.TICKET, "LKT\1garbage".getBytes(StandardCharsets.UTF_8),
            ALICE)).reason());
  }

  @Test
  void expiryUnknownKeyAudiencePrincipalAndKindAreEachRefusedByName() {
    KeyRing ring = KeyRing.generate("k1");
    TicketSealer sealer = sealer(ring, "cluster-a");
    byte[] ticket = sealer.seal(TicketSealer.Kind.TICKET, ALICE, PINS, PAYLOAD);
    byte[] handle = sealer.seal(TicketSealer.Kind.HANDLE, ALICE, List.of(), PAYLOAD);

    assertEquals(TicketRefusedException.Reason.WRONG_KIND, refused(sealer, TicketSealer.Kind.HANDLE, ticket, ALICE));
    assertEquals(TicketRefusedException.Reason.WRONG_KIND, refused(sealer, TicketSealer.Kind.TICKET, handle, ALICE));
    Principal bob = new Principal("bob", "lab", Principal.Role.ADMIN, Set.of("*"));
    assertEquals(TicketRefusedException.Reason.OTHER_PRINCIPAL, refused(sealer, TicketSealer.Kind.TICKET, ticket, bob));
    Principal aliceElsewhere = new Principal("alice", "other", Principal.Role.READER, Set.of("demo"));
    assertEquals(TicketRefusedException.Reason.OTHER_PRINCIPAL,
        refused(sealer, TicketSealer.Kind.TICKET, ticket, aliceElsewhere));
    assertEquals(TicketRefusedException.Reason.OTHER_AUDIENCE,
        refused(sealer(ring, "cluster-b"), TicketSealer.Kind.TICKET, ticket, ALICE));
    TicketRefusedException foreign = assertThrows(TicketRefusedException.class,
        () -> sealer(KeyRing.generate("k1"), "cluster-a").open(TicketSealer.Kind.TICKET, ticket, ALICE));
    assertEquals(TicketRefusedException.Reason.FORGED, foreign.reason(), "same id, other key");
    assertEquals(TicketRefusedException.Reason.UNKNOWN_KEY,
        refused(sealer(KeyRing.generate("k9"), "cluster-a"), TicketSealer.Kind.TICKET, ticket, ALICE));

    clock.advance(Duration.ofMinutes(59));
    sealer.open(TicketSealer.Kind.TICKET, ticket, ALICE);
    clock.advance(Duration.ofMinutes(1));
    TicketRefusedException expired = assertThrows(TicketRefusedException.class,
        () -> sealer.open(TicketSealer.Kind.TICKET, ticket, ALICE));
    assertEquals(TicketRefusedException.Reason.EXPIRED, expired.reason());
    assertTrue(expired.getMessage().contains("GetFlightInfo again"), expired.getMessage());
    sealer.open(TicketSealer.Kind.HANDLE, handle, ALICE);
    clock.advance(Duration.ofHours(23));
    assertEquals(TicketRefusedException.Reason.EXPIRED, refused(sealer, TicketSealer.Kind.HANDLE, handle, ALICE));
  }

  @Test
  void rotationKeepsOldEnvelopesOpenWhileTheirKeyIsListed() {
    AtomicReference<KeyRing> ring = new AtomicReference<>(KeyRing.generate("k1"));
    TicketSealer sealer = new TicketSealer(ring::get, "cluster-a", clock, Duration.ofHours(1),
        Duration.ofHours(1));
    byte[] old = sealer.seal(TicketSealer.Kind.TICKET, ALICE, PINS, PAYLOAD);
    ring.set(ring.get().rotate("k2"));
    byte[] fresh = sealer.seal(TicketSealer.Kind.TICKET, ALICE, PINS, PAYLOAD);
    assertTrue(new String(fresh, StandardCharsets.ISO_8859_1).contains("k2"), "sealed by the new key");
    assertArrayEquals(PAYLOAD, sealer.open(TicketSealer.Kind.TICKET, old, ALICE).payload());
    assertArrayEquals(PAYLOAD, sealer.open(TicketSealer.Kind.TICKET, fresh, ALICE).payload());
    ring.set(ring.get().retire("k1"));
    assertEquals(TicketRefusedException.Reason.UNKNOWN_KEY, refused(sealer, TicketSealer.Kind.TICKET, old, ALICE));
    assertArrayEquals(PAYLOAD, sealer.open(TicketSealer.Kind.TICKET, fresh, ALICE).payload());
  }

  @Test
  void keyRingFileRoundTripsReloadsOnChangeAndKeepsTheLastGoodRing() throws Exception {
    Path file = directory.resolve("keyring.json");
    KeyRing first = KeyRing.generate("k1");
    first.write(file);
    assertEquals(Set.of(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
        java.nio.file.attribute.PosixFilePermission.OWNER_WRITE), Files.getPosixFilePermissions(file));
    KeyRingFile source = KeyRingFile.open(file, Duration.ZERO);
    TicketSealer sealer = new TicketSealer(source, "cluster-a", clock, Duration.ofHours(1),
        Duration.ofHours(1));
    byte[] old = sealer.seal(TicketSealer.Kind.TICKET, ALICE, PINS, PAYLOAD);

    KeyRing second = KeyRing.load(file).rotate("k2");
    second.write(file);
    assertTrue(source.reloadIfChanged() || source.get().activeId().equals("k2"));
    assertEquals("k2", source.get().activeId());
    assertArrayEquals(PAYLOAD, sealer.open(TicketSealer.Kind.TICKET, old, ALICE).payload());

    Files.writeString(file, "{\"active\": \"k3\", \"keys\": []}");
    assertFalse(source.reloadIfChanged(), "a broken file is not taken");
    assertEquals("k2", source.get().activeId());
    assertArrayEquals(PAYLOAD, sealer.open(TicketSealer.Kind.TICKET, old, ALICE).payload());
  }

  @Test
  void keyRingFilesThatAreSharedOrMalformedAreRefusedNamingTheProblem() throws Exception {
    Path file = directory.resolve("open.json");
    KeyRing.generate("k1").write(file);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    IllegalArgumentException open = assertThrows(IllegalArgumentException.class, () -> KeyRing.load(file));
    assertTrue(open.getMessage().contains("chmod 600"), open.getMessage());
    for (String text : List.of("not json", "{}", "{\"active\": \"k1\", \"keys\": [{\"id\": \"k1\", \"key\": \"!!\"}]}",
        "{\"active\": \"k1\", \"keys\": [{\"id\": \"k1\", \"key\": \"AAAA\"}]}",
        "{\"active\": \"k2\", \"keys\": [{\"id\": \"k1\", \"key\": \"" + "A".repeat(43) + "=\"}]}",
        "{\"active\": \"a b\", \"keys\": [{\"id\": \"a b\", \"key\": \"" + "A".repeat(43) + "=\"}]}")) {
      Files.writeString(file, text);
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyRing.load(file), text);
      assertTrue(e.getMessage().startsWith("key ring " + file), e.getMessage());
    }
  }

  private static TicketRefusedException.Reason refused(TicketSealer sealer, TicketSealer.Kind kind,
      byte[] envelope, Principal principal) {
    return assertThrows(TicketRefusedException.class, () -> sealer.open(kind, envelope, principal))
        .reason();
  }

  private static final class MutableClock extends Clock {
    private Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }
}
