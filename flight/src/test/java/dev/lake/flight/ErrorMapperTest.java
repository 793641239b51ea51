package dev.lake.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.catalog.CatalogException;
import dev.lake.catalog.RegistryUnavailableException;
import dev.lake.catalog.TableAlreadyExistsException;
import dev.lake.catalog.TableIdent;
import dev.lake.catalog.TableNotFoundException;
import dev.lake.engine.CorruptDataException;
import dev.lake.engine.EngineException;
import dev.lake.engine.SchemaMismatchException;
import dev.lake.engine.TableLocation;
import dev.lake.engine.Version;
import dev.lake.exec.QueryStoppedException;
import dev.lake.sql.SqlException;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.StatusException;
import java.nio.file.Path;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

class ErrorMapperTest {

  private static final TableLocation LOCATION =
      TableLocation.of(Path.of("/srv/secret/warehouse/demo/t"));

  @Test
  void anUnreachableRegistryAuthorityIsUnavailableDirectOrThroughTheSqlEngine() {
    RegistryUnavailableException down = new RegistryUnavailableException("metasrv is down");
    StatusException direct = ErrorMapper.toStatus(down);
    assertEquals(GrpcStatus.UNAVAILABLE, direct.status());
    assertEquals("metasrv is down", direct.message());
    assertEquals(GrpcStatus.UNAVAILABLE, ErrorMapper.toStatus(new SqlException(
        SqlException.Kind.INTERNAL, "insert failed", 0, 0, down)).status());
  }

  @Test
  void syntaxErrorIsInvalidArgumentWithThePosition() {
    StatusException status = ErrorMapper.toStatus(new SqlException(SqlException.Kind.SYNTAX,
        "Encountered \"FORM\"", 1, 10, null));
    assertEquals(GrpcStatus.INVALID_ARGUMENT, status.status());
    assertTrue(status.message().contains("line 1, column 10"), status.message());
  }

  @Test
  void sqlKindsMapToTheirStatuses() {
    assertEquals(GrpcStatus.NOT_FOUND, map(new SqlException(SqlException.Kind.TABLE_NOT_FOUND,
        "table demo.nope not found")).status());
    assertEquals(GrpcStatus.NOT_FOUND, map(new SqlException(SqlException.Kind.VERSION_NOT_FOUND,
        "no version 9")).status());
    assertEquals(GrpcStatus.INVALID_ARGUMENT, map(new SqlException(SqlException.Kind.INVALID,
        "column 'x' not found")).status());
    assertEquals(GrpcStatus.UNIMPLEMENTED, map(new SqlException(SqlException.Kind.UNSUPPORTED,
        "window functions")).status());
    assertEquals(GrpcStatus.RESOURCE_EXHAUSTED, map(new SqlException(SqlException.Kind.RESOURCE_EXHAUSTED,
        "query memory budget of 1024 bytes exceeded")).status());
    assertEquals(GrpcStatus.INVALID_ARGUMENT, map(new SqlException(SqlException.Kind.EXECUTION,
        "division by zero", 0, 0, new ArithmeticException("/ by zero"))).status());
    StatusException timedOut = map(new SqlException(SqlException.Kind.TIMED_OUT, "query timed out after 200 ms"));
    assertEquals(GrpcStatus.DEADLINE_EXCEEDED, timedOut.status());
    assertEquals("query timed out after 200 ms", timedOut.message());
    assertEquals(GrpcStatus.CANCELLED, map(new SqlException(SqlException.Kind.CANCELLED, "query cancelled")).status());
    assertEquals(GrpcStatus.DEADLINE_EXCEEDED, map(new QueryStoppedException(
        QueryStoppedException.Reason.TIMED_OUT, "query timed out after 200 ms")).status());
    assertEquals(GrpcStatus.CANCELLED, map(new QueryStoppedException(
        QueryStoppedException.Reason.CANCELLED, "query cancelled")).status());
    StatusException storage = map(new SqlException(SqlException.Kind.INTERNAL,
        "read failed at " + LOCATION, 0, 0, new EngineException(LOCATION, "io")));
    assertEquals(GrpcStatus.INTERNAL, storage.status());
    assertFalse(storage.message().contains("/srv/secret"), storage.message());
  }

  @Test
  void catalogRefusalsMapToTheirStatuses() {
    TableIdent ident = TableIdent.of("demo", "t");
    assertEquals(GrpcStatus.NOT_FOUND, map(new TableNotFoundException(ident)).status());
    assertEquals(GrpcStatus.ALREADY_EXISTS, map(new TableAlreadyExistsException(ident)).status());
    assertEquals(GrpcStatus.RESOURCE_EXHAUSTED,
        map(new RejectedExecutionException("full")).status());
  }

  @Test
  void executionErrorsAreTheUsersFaultWhateverTheirCause() {
    // The kind was decided where the error was thrown; the cause's class plays no part.
    StatusException cast = map(new SqlException(SqlException.Kind.EXECUTION,
        "cannot cast 'röbot-21' to INTEGER", 0, 0, new IllegalStateException("any cause")));
    assertEquals(GrpcStatus.INVALID_ARGUMENT, cast.status());
    assertEquals("cannot cast 'röbot-21' to INTEGER", cast.message());
  }

  @Test
  void corruptDataIsDataLossNamingTableVersionSegmentAndColumnButNotTheLocation() {
    CorruptDataException corrupt = new CorruptDataException(LOCATION, Version.of(3),
        "data/a.seg", 2, "robot", "fails its checksum", null).inTable("lake.demo.t");
    assertTrue(corrupt.getMessage().contains("/srv/secret"), "the log keeps the location");
    String expected = "corrupt data in table lake.demo.t version 3: segment data/a.seg block 2"
        + " column 'robot' fails its checksum";
    for (Throwable e : new Throwable[] {corrupt, new CompletionException(corrupt),
        new SqlException(SqlException.Kind.CORRUPT_DATA, "corrupt data in " + corrupt.describe(),
            0, 0, corrupt)}) {
      StatusException status = map(e);
      assertEquals(GrpcStatus.DATA_LOSS, status.status(), e.toString());
      assertEquals(expected, status.message());
    }
  }

  @Test
  void schemaMismatchKeepsTheReasonButNotTheServerPath() {
    StatusException status = map(new CompletionException(
        new SchemaMismatchException(LOCATION, "field 'score' is Int(32) not Float(64)")));
    assertEquals(GrpcStatus.INVALID_ARGUMENT, status.status());
    assertEquals("field 'score' is Int(32) not Float(64)", status.message());
  }

  @Test
  void unexpectedFailuresAreInternalAndLeakNothing() {
    for (Throwable e : new Throwable[] {
        new IllegalStateException("boom at /srv/secret/file"),
        new CatalogException("the files of table lake.demo.t are missing at /srv/secret"),
        new EngineException(LOCATION, "fsync failed")}) {
      StatusException status = map(e);
      assertEquals(GrpcStatus.INTERNAL, status.status());
      assertFalse(status.message().contains("/srv/secret"), status.message());
    }
  }

  private static StatusException map(Throwable e) {
    return ErrorMapper.toStatus(e);
  }

  @Test
  void aHugeMessageKeepsItsStartAndEndWithinTheTrailerBound() {
    String message = "column '" + "x".repeat(1_000_000) + "' not found (line 1, column 8)";
    StatusException status = ErrorMapper.status(GrpcStatus.INVALID_ARGUMENT, message);
    String bounded = status.message();
    assertTrue(java.net.URLEncoder.encode(bounded, java.nio.charset.StandardCharsets.UTF_8).length()
        <= ErrorMapper.MAX_MESSAGE_BYTES, "encoded length of " + bounded.length() + " characters");
    assertTrue(bounded.startsWith("column 'xxx"), bounded);
    assertTrue(bounded.endsWith("' not found (line 1, column 8)"), bounded);
    assertTrue(bounded.contains("characters left out"), bounded);
    // Thrown elsewhere as a StatusException, it is bounded all the same.
    StatusException passed = ErrorMapper.toStatus(new StatusException(GrpcStatus.NOT_FOUND, message));
    assertEquals(GrpcStatus.NOT_FOUND, passed.status());
    assertEquals(bounded, passed.message());
  }

  @Test
  void cuttingNeverSplitsASurrogatePair() {
    String message = "\ud83d\ude00".repeat(100_000);
    String bounded = ErrorMapper.excerpt(message);
    for (int i = 0; i < bounded.length(); i++) {
      char c = bounded.charAt(i);
      if (Character.isHighSurrogate(c)) {
        assertTrue(i + 1 < bounded.length() && Character.isLowSurrogate(bounded.charAt(i + 1)), "at " + i);
      } else {
        assertFalse(Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(bounded.charAt(i - 1))), "at " + i);
      }
    }
    assertEquals("short", ErrorMapper.excerpt("short"));
  }

  @Test
  void malformedProtobufIsInvalidArgumentAndAStackOverflowIsResourceExhausted() {
    assertEquals(GrpcStatus.INVALID_ARGUMENT,
        map(new com.google.protobuf.InvalidProtocolBufferException("Protocol message had invalid UTF-8.")).status());
    assertEquals(GrpcStatus.RESOURCE_EXHAUSTED, ErrorMapper.toStatus(new StackOverflowError()).status());
    assertEquals(GrpcStatus.RESOURCE_EXHAUSTED,
        map(new TicketCodec.TicketTooLargeException("too large")).status());
  }

  @Test
  void everyTicketRefusalHasItsOwnStatusAndKeepsItsMessage() {
    java.util.Map<dev.lake.flight.ticket.TicketRefusedException.Reason, GrpcStatus> expected =
        java.util.Map.of(
            dev.lake.flight.ticket.TicketRefusedException.Reason.MALFORMED, GrpcStatus.INVALID_ARGUMENT,
            dev.lake.flight.ticket.TicketRefusedException.Reason.WRONG_KIND, GrpcStatus.INVALID_ARGUMENT,
            dev.lake.flight.ticket.TicketRefusedException.Reason.FORGED, GrpcStatus.UNAUTHENTICATED,
            dev.lake.flight.ticket.TicketRefusedException.Reason.UNKNOWN_KEY, GrpcStatus.UNAUTHENTICATED,
            dev.lake.flight.ticket.TicketRefusedException.Reason.EXPIRED, GrpcStatus.UNAUTHENTICATED,
            dev.lake.flight.ticket.TicketRefusedException.Reason.OTHER_AUDIENCE, GrpcStatus.PERMISSION_DENIED,
            dev.lake.flight.ticket.TicketRefusedException.Reason.OTHER_PRINCIPAL, GrpcStatus.PERMISSION_DENIED);
    assertEquals(dev.lake.flight.ticket.TicketRefusedException.Reason.values().length, expected.size());
    expected.forEach((reason, status) -> {
      io.vertx.grpc.server.StatusException mapped =
          map(new dev.lake.flight.ticket.TicketRefusedException(reason, "the ticket is " + reason));
      assertEquals(status, mapped.status(), reason.toString());
      assertEquals("the ticket is " + reason, mapped.message());
    });
  }
}
