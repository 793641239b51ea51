package dev.lake.cli.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class EndpointTest {

  @Test
  void parsesPlaintextAndTlsEndpoints() {
    assertEquals(new Endpoint("127.0.0.1", 31337, false), Endpoint.parse("grpc://127.0.0.1:31337"));
    assertEquals(new Endpoint("lake.example", 443, true), Endpoint.parse("grpc+tls://lake.example:443"));
    assertEquals(new Endpoint("localhost", 9000, false), Endpoint.parse("grpc+tcp://localhost:9000/"));
    assertEquals(new Endpoint("::1", 5000, false), Endpoint.parse("grpc://[::1]:5000"));
  }

  @Test
  void withoutAPortTheLakeDevPortIsMeant() {
    assertEquals(Endpoint.DEFAULT_PORT, Endpoint.parse("grpc://localhost").port());
  }

  @Test
  void printsAsAUri() {
    assertEquals("grpc+tls://lake.example:443", Endpoint.parse("grpc+tls://lake.example:443").toString());
    assertEquals("grpc://[::1]:5000", Endpoint.parse("grpc://[::1]:5000").toString());
  }

  @Test
  void refusesWhatIsNotAFlightEndpointNamingIt() {
    for (String bad : new String[] {"http://localhost:80", "localhost:31337", "grpc://", "grpc://host:99999",
        "grpc://user@host:1", "grpc://host:1/db", "grpc://host:1?x=1", "grpc://ho st:1", ""}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Endpoint.parse(bad), bad);
      assertTrue(e.getMessage().contains(bad.isEmpty() ? "''" : bad.split(":")[0])
          || e.getMessage().contains("port"), e.getMessage());
    }
  }
}
