package dev.lake.flight;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lake.flight.auth.AuthenticationException;
import dev.lake.flight.auth.Authenticator;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.apache.arrow.flight.impl.Flight;

/** The credentials a Flight Handshake may carry, checked into a bearer token. */
final class Handshakes {

  private Handshakes() {}

  /**
   * The bearer token to answer: a new short-lived one for basic credentials (header or {@code
   * BasicAuth} payload), or the caller's own bearer token once checked. Worker thread.
   *
   * @param header the call's {@code authorization} header, or null
   * @param first the first handshake message, or null if none was sent
   * @throws AuthenticationException when there are no credentials or they are wrong
   */
  static String answer(Authenticator authenticator, String header, Flight.HandshakeRequest first) {
    if (header != null && header.regionMatches(true, 0, "Basic ", 0, 6)) {
      String decoded;
      try {
        decoded = new String(Base64.getDecoder().decode(header.substring(6).trim()),
            StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        throw new AuthenticationException("the Basic authorization header is not base64");
      }
      int colon = decoded.indexOf(':');
      if (colon < 0) {
        throw new AuthenticationException("the Basic authorization header must be user:password");
      }
      return authenticator.login(decoded.substring(0, colon), decoded.substring(colon + 1));
    }
    if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      authenticator.authenticate(header);
      return header.substring(7).trim();
    }
    if (first != null && !first.getPayload().isEmpty()) {
      Flight.BasicAuth basic;
      try {
        basic = Flight.BasicAuth.parseFrom(first.getPayload());
      } catch (InvalidProtocolBufferException e) {
        throw new AuthenticationException("the handshake payload is not a BasicAuth message");
      }
      return authenticator.login(basic.getUsername(), basic.getPassword());
    }
    throw new AuthenticationException("the handshake carried no credentials: send"
        + " 'authorization: Basic <user:password>' or a BasicAuth payload");
  }
}
