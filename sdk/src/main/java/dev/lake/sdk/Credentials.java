package dev.lake.sdk;

import java.util.Objects;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.grpc.CredentialCallOption;

/** How a {@link LakeClient} proves who it is: nothing (a dev server) or a bearer token. */
public final class Credentials {

  private static final Credentials NONE = new Credentials(null);

  private final String token;

  private Credentials(String token) {
    this.token = token;
  }

  /** No credentials: the anonymous principal of a server without a principals file. */
  public static Credentials none() {
    return NONE;
  }

  /**
   * A bearer token, sent as {@code authorization: Bearer <token>} on every call.
   *
   * @throws IllegalArgumentException if {@code token} is blank
   * @throws NullPointerException if {@code token} is null
   */
  public static Credentials bearer(String token) {
    Objects.requireNonNull(token, "token");
    if (token.isBlank()) {
      throw new IllegalArgumentException("bearer token is blank");
    }
    return new Credentials(token);
  }

  /** The call options carrying these credentials (none for {@link #none()}). */
  CallOption[] callOptions() {
    return token == null ? new CallOption[0]
        : new CallOption[] {new CredentialCallOption(new BearerCredentialWriter(token))};
  }

  /** Never shows the token. */
  @Override
  public String toString() {
    return token == null ? "Credentials.none()" : "Credentials.bearer(***)";
  }
}
