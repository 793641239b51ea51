package dev.lake.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lake.flight.LakeFlightServer;
import dev.lake.flight.auth.Authenticator;
import dev.lake.flight.auth.Secrets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bearer credentials against a lake server with a principals file (docs/security.md). */
class LakeClientAuthTest {

  static final String ADMIN_TOKEN = Secrets.newToken();
  static final String READER_TOKEN = Secrets.newToken();

  @TempDir Path directory;
  private LakeTestServer server;

  @BeforeEach
  void start() throws Exception {
    Path principals = Files.writeString(directory.resolve("principals.json"), """
        {"principals": [
          {"name": "admin", "tenant": "ops", "role": "ADMIN", "namespaces": ["*"],
           "token_sha256": "%s"},
          {"name": "reader", "tenant": "t1", "role": "READER", "namespaces": ["demo"],
           "token_sha256": "%s"}]}
        """.formatted(Secrets.tokenHash(ADMIN_TOKEN), Secrets.tokenHash(READER_TOKEN)));
    server = new LakeTestServer(directory,
        LakeFlightServer.builder().authenticator(Authenticator.load(principals)));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void bearerTokenAuthenticatesAndGrantsApply() {
    try (LakeClient admin = LakeClient.connect(server.uri(), Credentials.bearer(ADMIN_TOKEN))) {
      admin.execute("CREATE SCHEMA demo");
      admin.execute("CREATE TABLE demo.t (id BIGINT NOT NULL, name VARCHAR)");
      assertEquals(1, admin.execute("INSERT INTO demo.t (id, name) VALUES (?, ?)", 1L, "one"));
    }
    try (LakeClient reader = LakeClient.connect(server.uri(), Credentials.bearer(READER_TOKEN));
        QueryResult result = reader.query("SELECT name FROM demo.t WHERE id = ?", 1L)) {
      assertEquals("one", result.rows().iterator().next().getString("name"));
      LakeException.PermissionDenied denied = assertThrows(LakeException.PermissionDenied.class,
          () -> reader.execute("INSERT INTO demo.t (id, name) VALUES (?, ?)", 2L, "two"));
      assertFalse(denied.retrySafe());
    }
  }

  @Test
  void missingOrWrongTokenIsUnauthenticated() {
    try (LakeClient anonymous = LakeClient.connect(server.uri(), Credentials.none())) {
      assertThrows(LakeException.Unauthenticated.class, () -> anonymous.query("SELECT 1"));
    }
    try (LakeClient wrong = LakeClient.connect(server.uri(),
        Credentials.bearer(Secrets.newToken()))) {
      LakeException e = assertThrows(LakeException.Unauthenticated.class,
          () -> wrong.execute("CREATE SCHEMA x"));
      assertFalse(e.retrySafe());
    }
  }
}
