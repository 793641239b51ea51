package dev.lake.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lake.engine.expr.Literal;
import java.net.URI;
import java.util.UUID;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;

class ValuesTest {

  @Test
  void versionsAreNonNegativeAndOrdered() {
    assertThrows(IllegalArgumentException.class, () -> Version.of(-1));
    assertEquals(Version.of(1), Version.INITIAL.next());
    assertEquals(-1, Version.of(2).compareTo(Version.of(3)));
  }

  @Test
  void appendOperationsNeedAHexSha256AndNonBlankNames() {
    UUID id = UUID.randomUUID();
    assertThrows(IllegalArgumentException.class,
        () -> new AppendOperation("t", "a.b", id, "ABC"));
    assertThrows(IllegalArgumentException.class,
        () -> new AppendOperation(" ", "a.b", id, "0".repeat(64)));
    assertThrows(IllegalArgumentException.class,
        () -> AppendOperation.of("t", "a.b", id, new byte[31]));
    assertEquals("00".repeat(32), AppendOperation.of("t", "a.b", id, new byte[32]).sha256());
  }

  @Test
  void tableLocationsAreAbsoluteUris() {
    assertThrows(IllegalArgumentException.class, () -> new TableLocation(URI.create("rel/path")));
    assertThrows(IllegalStateException.class,
        () -> new TableLocation(URI.create("s3://bucket/t")).localPath());
  }

  @Test
  void literalsHoldTheNormalisedJavaTypeOfTheirArrowType() {
    assertThrows(IllegalArgumentException.class,
        () -> new Literal(new ArrowType.Int(32, true), 5));
    assertEquals(5L, new Literal(new ArrowType.Int(32, true), 5L).value());
    assertThrows(IllegalArgumentException.class,
        () -> new Literal(ArrowType.Utf8.INSTANCE, 5L));
  }
}
