package dev.lake.sdk;

import dev.lake.engine.DataLocation;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;

/**
 * The bytes of a managed object (or of a range of it) as read from a stage, counted and, for the
 * whole object, digested: at EOF, or as soon as there are too many bytes, a difference from the
 * {@link DataLocation} is an {@link ObjectVerificationException} naming the object. The whole
 * object is read to the underlying stream's end, so extra bytes show; a range stops at its
 * length (the underlying stream may go on past it).
 */
final class VerifyingInputStream extends FilterInputStream {
  private final DataLocation location;
  private final long expected;
  private final MessageDigest sha;
  private long count;
  private boolean checked;

  /**
   * @param expected the number of bytes {@code in} must give
   * @param whole whether {@code in} is the whole object (then its SHA-256 is checked too)
   */
  VerifyingInputStream(InputStream in, DataLocation location, long expected, boolean whole) {
    super(in);
    this.location = location;
    this.expected = expected;
    this.sha = whole ? Digests.sha256() : null;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (sha == null && count == expected) {
      check();
      return -1;
    }
    int n = in.read(b, off, sha == null ? (int) Math.min(len, expected - count) : len);
    if (n < 0) {
      check();
      return -1;
    }
    count += n;
    if (sha != null) {
      sha.update(b, off, n);
    }
    if (count > expected) {
      throw new ObjectVerificationException(location.uri() + " has more than " + expected
          + " bytes");
    }
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    byte[] buffer = new byte[(int) Math.min(n, 8192)];
    long skipped = 0;
    while (skipped < n) {
      int r = read(buffer, 0, (int) Math.min(buffer.length, n - skipped));
      if (r < 0) {
        break;
      }
      skipped += r;
    }
    return skipped;
  }

  @Override
  public boolean markSupported() {
    return false;
  }

  @Override
  public synchronized void mark(int readlimit) {
    // not supported: a reset would count bytes twice
  }

  private void check() throws IOException {
    if (checked) {
      return;
    }
    checked = true;
    if (count != expected) {
      throw new ObjectVerificationException(location.uri() + " has " + count
          + " bytes, expected " + expected);
    }
    if (sha != null) {
      String actual = Digests.hex(sha);
      if (!actual.equals(location.sha256())) {
        throw new ObjectVerificationException(location.uri() + " has SHA-256 " + actual
            + ", expected " + location.sha256());
      }
    }
  }
}
