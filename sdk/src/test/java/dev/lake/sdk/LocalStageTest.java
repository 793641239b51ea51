package dev.lake.sdk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.DataLocation;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalStageTest {

  @TempDir Path dir;
  private Path stageDir;
  private StageDescriptor descriptor;

  @BeforeEach
  void setUp() {
    stageDir = dir.resolve("stage");
    descriptor = descriptorOf("acme");
  }

  private StageDescriptor descriptorOf(String tenant) {
    return new StageDescriptor(tenant, dir.toUri().resolve("stage/tenants/" + tenant + "/"),
        null, null, false);
  }

  private LocalStage stage() {
    return new LocalStage(descriptor);
  }

  private Path file(long seed, int size) throws IOException {
    return TestFiles.random(dir, seed, size);
  }

  /** Every file below the stage directory (objects and anything left in incoming/). */
  private List<Path> stageFiles() throws IOException {
    if (!Files.exists(stageDir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(stageDir)) {
      return files.filter(Files::isRegularFile).toList();
    }
  }

  @Test
  void putPublishesUnderTheContentKeyAndReadsBackVerified() throws Exception {
    Path file = file(1, 3 * (1 << 20) + 17);
    byte[] expected = Files.readAllBytes(file);
    String sha = HexSha.of(expected);
    List<Long> progress = new ArrayList<>();
    try (LocalStage stage = stage()) {
      DataLocation loc = stage.put(file, "video/mp4", (done, total) -> progress.add(done));
      assertEquals(new DataLocation(URI.create(descriptor.root() + "objects/" + sha.substring(0, 2)
          + "/" + sha), "video/mp4", expected.length, sha), loc);
      assertArrayEquals(expected, Files.readAllBytes(Path.of(loc.uri())));
      assertEquals(List.of(Path.of(loc.uri())), stageFiles(), "no temporary file is left");
      assertTrue(stage.owns(loc));
      assertArrayEquals(expected, TestFiles.readAll(stage.open(loc, 0, loc.size())));
      assertEquals((long) expected.length, progress.getLast());
    }
  }

  @Test
  void emptyFileIsAnObjectToo() throws Exception {
    Path file = Files.write(dir.resolve("empty"), new byte[0]);
    try (LocalStage stage = stage()) {
      DataLocation loc = stage.put(file, "application/octet-stream", UploadProgress.none());
      assertEquals(0, loc.size());
      assertEquals(0, TestFiles.readAll(stage.open(loc, 0, 0)).length);
    }
  }

  @Test
  void sameContentTwiceReusesTheObjectAndADamagedOneIsReplaced() throws Exception {
    Path file = file(2, 100_000);
    try (LocalStage stage = stage()) {
      DataLocation loc = stage.put(file, "video/mp4", UploadProgress.none());
      Path object = Path.of(loc.uri());
      FileTime old = FileTime.fromMillis(1_000_000L);
      Files.setLastModifiedTime(object, old);
      assertEquals(loc, stage.put(file, "video/mp4", UploadProgress.none()));
      assertEquals(old, Files.getLastModifiedTime(object), "an intact object is not rewritten");

      byte[] damaged = Files.readAllBytes(object);
      damaged[5] ^= 1;
      Files.write(object, damaged);
      assertEquals(loc, stage.put(file, "video/mp4", UploadProgress.none()));
      assertArrayEquals(Files.readAllBytes(file), Files.readAllBytes(object));
      assertEquals(1, stageFiles().size());
    }
  }

  @Test
  void tamperedTruncatedOrExtendedObjectsFailAtEofNamingTheObject() throws Exception {
    Path file = file(3, 200_000);
    try (LocalStage stage = stage()) {
      DataLocation loc = stage.put(file, "video/mp4", UploadProgress.none());
      Path object = Path.of(loc.uri());
      byte[] good = Files.readAllBytes(object);

      byte[] tampered = good.clone();
      tampered[100_000] ^= 0x40;
      Files.write(object, tampered);
      ObjectVerificationException e = assertThrows(ObjectVerificationException.class,
          () -> TestFiles.readAll(stage.open(loc, 0, loc.size())));
      assertTrue(e.getMessage().contains(loc.uri().toString()), e.getMessage());
      assertTrue(e.getMessage().contains("SHA-256"), e.getMessage());

      Files.write(object, Arrays.copyOf(good, good.length - 1));
      e = assertThrows(ObjectVerificationException.class,
          () -> TestFiles.readAll(stage.open(loc, 0, loc.size())));
      assertTrue(e.getMessage().contains(loc.uri() + " has " + (good.length - 1) + " bytes"),
          e.getMessage());
      e = assertThrows(ObjectVerificationException.class,
          () -> TestFiles.readAll(stage.open(loc, good.length - 10, good.length)), "a range past the end");
      assertTrue(e.getMessage().contains(loc.uri().toString()), e.getMessage());

      Files.write(object, Arrays.copyOf(good, good.length + 1));
      e = assertThrows(ObjectVerificationException.class,
          () -> TestFiles.readAll(stage.open(loc, 0, loc.size())));
      assertTrue(e.getMessage().contains("more than " + good.length), e.getMessage());
    }
  }

  @Test
  void rangedReadsReturnExactlyTheRange() throws Exception {
    Path file = file(4, 50_000);
    byte[] bytes = Files.readAllBytes(file);
    try (LocalStage stage = stage()) {
      DataLocation loc = stage.put(file, "video/mp4", UploadProgress.none());
      assertArrayEquals(Arrays.copyOfRange(bytes, 1234, 40_000), TestFiles.readAll(stage.open(loc, 1234, 40_000)));
      assertArrayEquals(Arrays.copyOfRange(bytes, 0, 1), TestFiles.readAll(stage.open(loc, 0, 1)));
      assertArrayEquals(Arrays.copyOfRange(bytes, 49_999, 50_000),
          TestFiles.readAll(stage.open(loc, 49_999, 50_000)));
    }
  }

  @Test
  void rangesOutsideTheObjectAreRefusedBeforeAnyIo() throws Exception {
    Path file = file(5, 1000);
    try (LocalStage stage = stage()) {
      DataLocation loc = stage.put(file, "video/mp4", UploadProgress.none());
      Files.delete(Path.of(loc.uri())); // a refusal must come before the file is looked at
      for (long[] range : new long[][] {{-1, 10}, {0, 1001}, {10, 10}, {20, 10}}) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> stage.open(loc, range[0], range[1]), Arrays.toString(range));
        assertTrue(e.getMessage().contains("[" + range[0] + ", " + range[1] + ")"),
            e.getMessage());
      }
      assertThrows(NoSuchFileException.class, () -> stage.open(loc, 0, 1000));
    }
  }

  @Test
  void foreignLocationsAreRefusedBeforeAnyIo() throws Exception {
    Path file = file(6, 1000);
    DataLocation other;
    try (LocalStage otherTenant = new LocalStage(descriptorOf("other"))) {
      other = otherTenant.put(file, "video/mp4", UploadProgress.none());
    }
    String sha = other.sha256();
    String key = "objects/" + sha.substring(0, 2) + "/" + sha;
    try (LocalStage stage = stage()) {
      List<URI> foreign = List.of(other.uri(),
          URI.create(descriptor.root() + "../other/" + key),
          URI.create(descriptor.root() + key + "?x=1"),
          URI.create(descriptor.root() + key + "#f"),
          URI.create(descriptor.root() + "incoming/" + sha),
          URI.create(descriptor.root() + "objects/00/" + sha + "/x"),
          URI.create("file://host" + descriptor.root().getPath() + key),
          URI.create("s3://bucket" + descriptor.root().getPath() + key));
      for (URI uri : foreign) {
        DataLocation loc = new DataLocation(uri, "video/mp4", other.size(), sha);
        assertFalse(stage.owns(loc), uri.toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> stage.open(loc, 0, loc.size()), uri.toString());
        assertTrue(e.getMessage().contains(uri.toString()), e.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> stage.presign(loc, Duration.ofMinutes(1)), uri.toString());
      }
    }
  }

  @Test
  void presignIsUnsupportedOnALocalStage() throws Exception {
    try (LocalStage stage = stage()) {
      DataLocation loc = stage.put(file(7, 10), "video/mp4", UploadProgress.none());
      UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
          () -> stage.presign(loc, Duration.ofMinutes(5)));
      assertTrue(e.getMessage().contains(loc.uri().toString()), e.getMessage());
    }
  }

  @Test
  void missingFileIsRefusedWithoutTouchingTheStage() throws Exception {
    try (LocalStage stage = stage()) {
      NoSuchFileException e = assertThrows(NoSuchFileException.class,
          () -> stage.put(dir.resolve("absent.mcap"), "video/mp4", UploadProgress.none()));
      assertTrue(e.getMessage().contains("absent.mcap"), e.getMessage());
    }
    assertFalse(Files.exists(stageDir));
  }

  @Test
  void theFactoryOpensTheStageTheDescriptorNames() {
    try (ObjectStage local = ObjectStages.open(descriptor, StageCredentials.defaultChain(), null)) {
      assertInstanceOf(LocalStage.class, local);
    }
    StageDescriptor s3 = new StageDescriptor("acme", URI.create("s3://bucket/lake/tenants/acme/"),
        URI.create("http://127.0.0.1:9"), "us-east-1", true);
    try (ObjectStage remote = ObjectStages.open(s3, StageCredentials.of("id", "secret"),
        dir.resolve("resume"))) {
      assertInstanceOf(S3Stage.class, remote);
    }
    assertThrows(IllegalArgumentException.class, () -> new LocalStage(s3));
  }
}
