package dev.lake.flight.auth;

import java.util.List;

/** Reads one cookie out of a request's {@code cookie} headers (HTTP/2 may split them). */
public final class Cookies {

  private Cookies() {}

  /**
   * The value of cookie {@code name} (unquoted), the last one if it is sent more than once, or
   * null.
   *
   * @param headers the values of every {@code cookie} header of the request
   */
  public static String value(List<String> headers, String name) {
    String value = null;
    for (String header : headers) {
      for (String pair : header.split(";")) {
        int eq = pair.indexOf('=');
        if (eq > 0 && pair.substring(0, eq).trim().equals(name)) {
          value = pair.substring(eq + 1).trim();
          if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
            // A quoted value: what java.net.HttpCookie (Arrow's cookie middleware) sends back
            // for a cookie that came with Max-Age.
            value = value.substring(1, value.length() - 1);
          }
        }
      }
    }
    return value;
  }
}
