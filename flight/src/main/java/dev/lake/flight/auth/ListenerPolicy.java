package dev.lake.flight.auth;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Which listeners a server may open: a plaintext or unauthenticated one only on a loopback
 * address (dev mode); anything reachable from other machines needs a principals file and TLS.
 */
public final class ListenerPolicy {

  private ListenerPolicy() {}

  /**
   * @throws IllegalStateException naming the address and what is missing, when {@code host} is
   *     not loopback and authentication or TLS is off
   */
  public static void check(String host, boolean authenticated, boolean tls) {
    if ((authenticated && tls) || isLoopback(host)) {
      return;
    }
    String missing = !authenticated && !tls ? "a principals file (--principals) and TLS"
        + " (--tls-cert, --tls-key)" : !authenticated ? "a principals file (--principals)"
        : "TLS (--tls-cert, --tls-key)";
    throw new IllegalStateException("refusing to listen on " + host + " without " + missing
        + ": a plaintext or anonymous listener is allowed on loopback only (dev mode)");
  }

  static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
