package dev.lake.engine.log.store;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A table under {@code s3://bucket/prefix}. Put-if-absent is a {@code PutObject} with {@code
 * If-None-Match: *}: S3 answers 412 to every writer but the first, and a PUT is atomic, so no
 * reader sees a partial object. Since the SDK retries a PUT whose reply was lost, a 412 may be
 * our own first attempt: the object is then read back and compared (commit entries are unique:
 * they carry a timestamp and fresh segment names). New data objects are staged in a local temp file and uploaded,
 * with the same condition, on commit. The client belongs to the engine and is not closed here.
 */
public final class S3ObjectStore implements ObjectStore {

  private static final int PRECONDITION_FAILED = 412;
  private static final int CONDITIONAL_CONFLICT = 409;
  private static final int NOT_FOUND = 404;

  private final S3Client s3;
  private final String bucket;
  private final String prefix;

  /**
   * @param prefix key prefix of the table, without leading or trailing slash (may be empty)
   */
  public S3ObjectStore(S3Client s3, String bucket, String prefix) {
    this.s3 = s3;
    this.bucket = bucket;
    this.prefix = prefix.isEmpty() ? "" : prefix + "/";
  }

  private String key(String relative) {
    return prefix + relative;
  }

  @Override
  public String describe(String relative) {
    return "s3://" + bucket + "/" + key(relative);
  }

  @Override
  public boolean putIfAbsent(String relative, byte[] bytes) throws IOException {
    for (int attempt = 0; ; attempt++) {
      try {
        s3.putObject(put(relative), RequestBody.fromBytes(bytes));
        return true;
      } catch (S3Exception e) {
        if (e.statusCode() == PRECONDITION_FAILED) {
          // The SDK retries a PUT whose reply was lost; the retry then meets our own object.
          return isOurs(relative, bytes);
        }
        // 409: a concurrent conditional write to the same key is in flight; the next try
        // sees its outcome.
        if (e.statusCode() != CONDITIONAL_CONFLICT || attempt >= 10) {
          throw failure("put", relative, e);
        }
      } catch (SdkException e) {
        throw failure("put", relative, e);
      }
    }
  }

  private PutObjectRequest put(String relative) {
    return PutObjectRequest.builder().bucket(bucket).key(key(relative)).ifNoneMatch("*").build();
  }

  @Override
  public ObjectWriter create(String relative) throws IOException {
    Path temp = Files.createTempFile("lake-s3-upload-", ".tmp");
    FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE);
    return new ObjectWriter() {
      private long position;
      private boolean closed;

      @Override
      public void write(ByteBuffer... buffers) throws IOException {
        // Sequential writes from the channel's own position, which only this writer moves.
        long remaining = 0;
        for (ByteBuffer b : buffers) {
          remaining += b.remaining();
        }
        while (remaining > 0) {
          long n = channel.write(buffers);
          position += n;
          remaining -= n;
        }
      }

      @Override
      public long position() {
        return position;
      }

      @Override
      public long commit() throws IOException {
        channel.close();
        try {
          s3.putObject(put(relative), RequestBody.fromFile(temp));
        } catch (S3Exception e) {
          // Keys of new objects are fresh UUIDs: a 412 can only be our own earlier attempt,
          // whose reply the SDK lost and retried. Accept it only if the sizes agree.
          if (e.statusCode() != PRECONDITION_FAILED || sizeOf(relative) != position) {
            throw failure("upload", relative, e);
          }
        } catch (SdkException e) {
          throw failure("upload", relative, e);
        } finally {
          Files.deleteIfExists(temp);
        }
        return position;
      }

      @Override
      public void close() throws IOException {
        if (!closed) {
          closed = true;
          channel.close();
          Files.deleteIfExists(temp);
        }
      }
    };
  }

  /** Whether the object at {@code relative} holds exactly {@code bytes} (entries are unique). */
  private boolean isOurs(String relative, byte[] bytes) throws IOException {
    return get(relative).map(existing -> Arrays.equals(existing, bytes)).orElse(false);
  }

  private long sizeOf(String relative) throws IOException {
    try {
      return s3.headObject(b -> b.bucket(bucket).key(key(relative))).contentLength();
    } catch (SdkException e) {
      throw failure("head", relative, e);
    }
  }

  @Override
  public Optional<byte[]> get(String relative) throws IOException {
    try {
      return Optional.of(s3.getObjectAsBytes(
          GetObjectRequest.builder().bucket(bucket).key(key(relative)).build()).asByteArray());
    } catch (S3Exception e) {
      if (e.statusCode() == NOT_FOUND) {
        return Optional.empty();
      }
      throw failure("get", relative, e);
    } catch (SdkException e) {
      throw failure("get", relative, e);
    }
  }

  @Override
  public ReadableObject open(String relative) throws IOException {
    long size;
    try {
      HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key(key(relative)));
      size = head.contentLength();
    } catch (S3Exception e) {
      if (e.statusCode() == NOT_FOUND) {
        throw new NoSuchFileException(describe(relative));
      }
      throw failure("head", relative, e);
    } catch (SdkException e) {
      throw failure("head", relative, e);
    }
    return new ReadableObject() {
      @Override
      public long size() {
        return size;
      }

      @Override
      public void read(long position, ByteBuffer target) throws IOException {
        int want = target.remaining();
        if (want == 0) {
          return;
        }
        if (position + want > size) {
          throw new EOFException("unexpected end of object at byte " + size);
        }
        GetObjectRequest request = GetObjectRequest.builder().bucket(bucket).key(key(relative))
            .range("bytes=" + position + "-" + (position + want - 1)).build();
        try (ResponseInputStream<GetObjectResponse> in = s3.getObject(request)) {
          readInto(in, target, position);
        } catch (S3Exception e) {
          if (e.statusCode() == NOT_FOUND) {
            throw new NoSuchFileException(describe(relative));
          }
          throw failure("read", relative, e);
        } catch (SdkException e) {
          throw failure("read", relative, e);
        }
      }

      @Override
      public void close() {}
    };
  }

  private static void readInto(InputStream in, ByteBuffer target, long position) throws IOException {
    byte[] chunk = new byte[Math.min(target.remaining(), 1 << 16)];
    long pos = position;
    while (target.hasRemaining()) {
      int n = in.read(chunk, 0, Math.min(chunk.length, target.remaining()));
      if (n < 0) {
        throw new EOFException("unexpected end of object at byte " + pos);
      }
      target.put(chunk, 0, n);
      pos += n;
    }
  }

  @Override
  public List<ObjectInfo> list(String relativePrefix, String startAfter) throws IOException {
    List<ObjectInfo> out = new ArrayList<>();
    ListObjectsV2Request.Builder request = ListObjectsV2Request.builder()
        .bucket(bucket).prefix(key(relativePrefix));
    if (startAfter != null) {
      request.startAfter(key(startAfter));
    }
    try {
      for (S3Object o : s3.listObjectsV2Paginator(request.build()).contents()) {
        out.add(new ObjectInfo(o.key().substring(prefix.length()), o.size(), o.lastModified()));
      }
    } catch (SdkException e) {
      throw failure("list", relativePrefix, e);
    }
    return out;
  }

  @Override
  public void delete(String relative) throws IOException {
    try {
      s3.deleteObject(b -> b.bucket(bucket).key(key(relative)));
    } catch (SdkException e) {
      throw failure("delete", relative, e);
    }
  }

  /** One DELETE per object: DeleteObjects needs Content-MD5, which not every S3 server accepts. */
  @Override
  public void deleteAll() throws IOException {
    for (ObjectInfo o : list("", null)) {
      delete(o.key());
    }
  }

  @Override
  public void close() {}

  private IOException failure(String what, String relative, SdkException e) {
    return new IOException("S3 " + what + " of " + describe(relative) + " failed: " + e.getMessage(), e);
  }
}
