package dev.lake.sdk;

import dev.lake.engine.DataLocation;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;
import software.amazon.awssdk.services.s3.model.Part;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The S3 stage: objects of one tenant below {@code s3://bucket/prefix/tenants/<t>/}.
 *
 * <p><b>Upload.</b> The content key must be known before the bytes go to the store, so
 * {@link #put} reads the file twice: a first local pass computes SHA-256, size and each part's
 * MD5 (local reads are several times faster than the network), then the file streams as a
 * multipart upload straight to {@code objects/<hh>/<sha256>}, {@value #PARTS_IN_FLIGHT} parts at
 * once, each read from one open descriptor by positional reads (no part buffer) and sent with
 * its Content-MD5. S3 makes a multipart object visible only at CompleteMultipartUpload, so the
 * key is published atomically and only when complete; no temporary object and no server-side
 * copy (which S3 limits to 5 GB) are needed. The bytes a part sends are digested again and must
 * be those of the first pass, else the upload is aborted (the file changed). Progress and the
 * part hook run on the calling thread, in part order. Files of at most one part go as a single
 * PutObject (with Content-MD5), from one buffer of the file.
 *
 * <p><b>Resume.</b> The upload id of a multipart upload in progress is kept in a small file in
 * the resume directory, named by the stage root, the file's real path, size and modification
 * time. A later {@code put} of the same unchanged file lists the parts already stored and skips
 * each whose size and ETag (the MD5 of the part, recomputed from the file) match. Failures that
 * cannot be resumed (the file changed, the store rejected the completion) abort the upload.
 */
final class S3Stage implements ObjectStage {

  /** S3's smallest part (except the last). */
  static final int MIN_PART_SIZE = 5 << 20;
  static final int DEFAULT_PART_SIZE = 16 << 20;
  /** SigV4 presigned URLs live at most seven days. */
  static final Duration MAX_PRESIGN_TTL = Duration.ofDays(7);
  private static final int MAX_ATTEMPTS = 6;
  private static final int MAX_PARTS = 10_000;
  /**
   * Parts sent at once. Parts stream from the file (no part buffer), so memory is this many
   * HTTP connections' buffers and 16 bytes of MD5 per part, whatever the part size.
   */
  static final int PARTS_IN_FLIGHT = 4;

  private final StageDescriptor descriptor;
  private final String bucket;
  private final String prefix;
  private final int partSize;
  private final Path resumeDir;
  private final S3Client s3;
  private final S3Presigner presigner;
  /** Test hook: called with each part number after that part is stored. */
  private final IntConsumer afterPart;

  S3Stage(StageDescriptor descriptor, StageCredentials credentials, Path resumeDir) {
    this(descriptor, credentials, resumeDir, DEFAULT_PART_SIZE, part -> {});
  }

  /**
   * @param resumeDir where upload ids of unfinished multipart uploads are kept (created if
   *     missing); null: an interrupted upload starts over
   */
  S3Stage(StageDescriptor descriptor, StageCredentials credentials, Path resumeDir, int partSize,
      IntConsumer afterPart) {
    if (!descriptor.isS3()) {
      throw new IllegalArgumentException("not an s3 stage: " + descriptor.root());
    }
    if (partSize < MIN_PART_SIZE) {
      throw new IllegalArgumentException("part size must be at least " + MIN_PART_SIZE
          + " bytes, got " + partSize);
    }
    URI root = descriptor.root();
    if (root.getHost() == null || root.getRawQuery() != null || root.getRawFragment() != null) {
      throw new IllegalArgumentException("s3 stage root must be s3://bucket/prefix/, got " + root);
    }
    this.descriptor = descriptor;
    this.bucket = root.getHost();
    this.prefix = root.getPath().substring(1);
    this.partSize = partSize;
    this.resumeDir = resumeDir;
    this.afterPart = afterPart;
    AwsCredentialsProvider provider = credentials.isDefaultChain()
        ? DefaultCredentialsProvider.builder().build()
        : StaticCredentialsProvider.create(credentials.sessionToken() == null
            ? AwsBasicCredentials.create(credentials.accessKeyId(), credentials.secretAccessKey())
            : AwsSessionCredentials.create(credentials.accessKeyId(),
                credentials.secretAccessKey(), credentials.sessionToken()));
    Region region = Region.of(descriptor.s3Region() == null ? "us-east-1" : descriptor.s3Region());
    var client = S3Client.builder()
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .region(region)
        .credentialsProvider(provider)
        .forcePathStyle(descriptor.s3PathStyle())
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(o -> o.retryStrategy(r -> r.maxAttempts(MAX_ATTEMPTS)));
    var signer = S3Presigner.builder()
        .region(region)
        .credentialsProvider(provider)
        .serviceConfiguration(S3Configuration.builder()
            .pathStyleAccessEnabled(descriptor.s3PathStyle()).build());
    if (descriptor.s3Endpoint() != null) {
      client.endpointOverride(descriptor.s3Endpoint());
      signer.endpointOverride(descriptor.s3Endpoint());
    }
    this.s3 = client.build();
    this.presigner = signer.build();
  }

  @Override
  public DataLocation put(Path file, String mimeType, UploadProgress progress) throws IOException {
    long size = Files.size(file); // NoSuchFileException first, before any request
    long modified = Files.getLastModifiedTime(file).toMillis();
    if ((size + partSize - 1) / partSize > MAX_PARTS) {
      throw new IOException(file + " of " + size + " bytes needs more than " + MAX_PARTS
          + " parts of " + partSize + " bytes");
    }
    if (size <= partSize) {
      String sha256 = digest(file, size);
      DataLocation location = location(mimeType, size, sha256);
      try {
        if (!stored(location)) {
          putSingle(file, keyOf(location), size, sha256);
        }
      } catch (SdkException e) {
        throw failed(file, location, e);
      }
      progress.onProgress(size, size);
      return location;
    }
    // One descriptor for the whole upload: a file removed meanwhile (POSIX) is still read.
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      PartDigests digests = partDigests(file, channel, size);
      DataLocation location = location(mimeType, size, digests.sha256());
      try {
        if (!stored(location)) {
          putMultipart(file, channel, keyOf(location), size, modified, digests.parts(), progress);
        }
      } catch (SdkException e) {
        throw failed(file, location, e);
      }
      progress.onProgress(size, size);
      return location;
    }
  }

  private DataLocation location(String mimeType, long size, String sha256) {
    return new DataLocation(uriOf(prefix + ObjectStage.contentKey(sha256)), mimeType, size,
        sha256);
  }

  /** Whether the object is stored already (an earlier put of the same bytes). */
  private boolean stored(DataLocation location) {
    Long stored = storedSize(keyOf(location));
    return stored != null && stored == location.size();
  }

  private static IOException failed(Path file, DataLocation location, SdkException e) {
    return new IOException("upload of " + file + " to " + location.uri() + " failed: "
        + e.getMessage(), e);
  }

  private void putSingle(Path file, String key, long size, String sha256) throws IOException {
    byte[] buffer = new byte[(int) size];
    MessageDigest sha = Digests.sha256();
    MessageDigest md5 = Digests.md5();
    try (InputStream in = Files.newInputStream(file)) {
      if (in.readNBytes(buffer, 0, buffer.length) != size || in.read() != -1) {
        throw new IOException(file + " changed during upload (size)");
      }
    }
    sha.update(buffer);
    md5.update(buffer);
    if (!HexFormat.of().formatHex(sha.digest()).equals(sha256)) {
      throw new IOException(file + " changed during upload (content)");
    }
    s3.putObject(r -> r.bucket(bucket).key(key).contentLength(size)
            .contentMD5(Base64.getEncoder().encodeToString(md5.digest())),
        RequestBody.fromContentProvider(() -> new ByteArrayInputStream(buffer), size,
            "application/octet-stream"));
  }

  private void putMultipart(Path file, FileChannel channel, String key, long size,
      long modified, List<byte[]> partMd5, UploadProgress progress) throws IOException {
    Path resume = resumeFile(file, size, modified);
    String uploadId = resumedUpload(resume, key);
    Map<Integer, Part> stored = uploadId == null ? null : listParts(key, uploadId);
    if (stored == null) {
      stored = Map.of();
      forget(resume);
      uploadId = s3.createMultipartUpload(r -> r.bucket(bucket).key(key)).uploadId();
      remember(resume, key, uploadId);
    }
    uploadParts(file, channel, key, size, uploadId, stored, partMd5, resume, progress);
  }

  /** A part on its way: its number, length and, when it is sent (not resumed), its upload. */
  private record InFlight(int number, int length, String storedEtag, Future<String> upload) {}

  private void uploadParts(Path file, FileChannel channel, String key, long size, String id,
      Map<Integer, Part> stored, List<byte[]> partMd5, Path resume, UploadProgress progress)
      throws IOException {
    boolean resumable = true;
    ExecutorService senders = Executors.newFixedThreadPool(PARTS_IN_FLIGHT, r -> {
      Thread t = new Thread(r, "lake-s3-part");
      t.setDaemon(true);
      return t;
    });
    ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
    try {
      List<CompletedPart> parts = new ArrayList<>();
      long done = 0;
      for (int number = 1; number <= partMd5.size(); number++) {
        long offset = (long) (number - 1) * partSize;
        int length = (int) Math.min(partSize, size - offset);
        byte[] md5 = partMd5.get(number - 1);
        String etag = "\"" + HexFormat.of().formatHex(md5) + "\"";
        Part old = stored.get(number);
        if (old != null && old.size() == length && etag.equals(old.eTag())) {
          inFlight.add(new InFlight(number, length, etag, null));
        } else {
          int n = number;
          inFlight.add(new InFlight(number, length, null, senders.submit(
              () -> uploadPart(file, channel, key, id, n, offset, length, md5))));
        }
        // Progress and the part hook run here, in part order, as each oldest part is stored.
        while (inFlight.size() >= PARTS_IN_FLIGHT || (number == partMd5.size()
            && !inFlight.isEmpty())) {
          InFlight part = inFlight.removeFirst();
          String tag = part.storedEtag();
          if (part.upload() != null) {
            tag = awaitPart(part.upload());
            afterPart.accept(part.number());
          }
          parts.add(CompletedPart.builder().partNumber(part.number()).eTag(tag).build());
          done += part.length();
          progress.onProgress(done, size);
        }
      }
      if (channel.size() != size) {
        resumable = false;
        throw new IOException(file + " changed during upload (size)");
      }
      resumable = false; // a rejected completion is not retried part by part
      s3.completeMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(id)
          .multipartUpload(m -> m.parts(parts)));
      forget(resume);
    } catch (ChangedContent e) {
      IOException changed = new IOException(e.getMessage(), e.getCause());
      stopSenders(senders, inFlight);
      abort(key, id, resume, changed);
      throw changed;
    } catch (IOException | RuntimeException e) {
      stopSenders(senders, inFlight);
      if (!resumable) {
        abort(key, id, resume, e);
      }
      throw e;
    } finally {
      senders.shutdownNow();
    }
  }

  /** The file's bytes differ from those digested before the upload: never resumable. */
  private static final class ChangedContent extends IOException {
    ChangedContent(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Cancels the parts not yet stored and waits until no sender touches the upload any more. */
  private static void stopSenders(ExecutorService senders, ArrayDeque<InFlight> inFlight) {
    inFlight.forEach(part -> {
      if (part.upload() != null) {
        part.upload().cancel(true);
      }
    });
    senders.shutdownNow();
    try {
      if (!senders.awaitTermination(5, TimeUnit.MINUTES)) {
        throw new IllegalStateException("part uploads did not stop within 5 minutes");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String awaitPart(Future<String> upload) throws IOException {
    try {
      return upload.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while uploading parts");
    } catch (ExecutionException e) {
      switch (e.getCause()) {
        case IOException io -> throw io;
        case RuntimeException runtime -> throw runtime;
        case Error error -> throw error;
        default -> throw new IOException(e.getCause());
      }
    }
  }

  /**
   * Sends part {@code number} straight from the file (no part buffer), with the Content-MD5 of
   * the bytes digested before the upload; the bytes sent are digested again, so a file changed
   * since is refused ({@link ChangedContent}) whether or not the store checks Content-MD5.
   */
  private String uploadPart(Path file, FileChannel channel, String key, String id, int number,
      long offset, int length, byte[] md5) throws IOException {
    PartStream[] last = new PartStream[1];
    String etag;
    try {
      etag = s3.uploadPart(r -> r.bucket(bucket).key(key).uploadId(id).partNumber(number)
              .contentLength((long) length)
              .contentMD5(Base64.getEncoder().encodeToString(md5)),
          RequestBody.fromContentProvider(() -> last[0] = new PartStream(channel, offset, length),
              length, "application/octet-stream")).eTag();
    } catch (S3Exception e) {
      if ("BadDigest".equals(e.awsErrorDetails() == null ? null
          : e.awsErrorDetails().errorCode())) {
        throw new ChangedContent(file + " changed during upload (content)", e);
      }
      throw e;
    }
    if (last[0] == null || !last[0].sent(md5)) {
      throw new ChangedContent(file + " changed during upload (content)", null);
    }
    return etag;
  }

  /** Bytes {@code [offset, offset + length)} of the file by positional reads, digested as read. */
  private static final class PartStream extends InputStream {
    private final FileChannel channel;
    private final long end;
    private final MessageDigest md5 = Digests.md5();
    private long position;
    private boolean complete;

    PartStream(FileChannel channel, long offset, int length) {
      this.channel = channel;
      this.position = offset;
      this.end = offset + length;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (position >= end) {
        complete = true;
        return -1;
      }
      int n = channel.read(java.nio.ByteBuffer.wrap(b, off, (int) Math.min(len, end - position)),
          position);
      if (n < 0) {
        return -1; // shorter than digested: sent() is false
      }
      md5.update(b, off, n);
      position += n;
      complete = position == end;
      return n;
    }

    /** Whether exactly the part's bytes were read and their MD5 is {@code expected}. */
    boolean sent(byte[] expected) {
      return complete && MessageDigest.isEqual(md5.digest(), expected);
    }
  }

  /**
   * The local pass of a multipart upload, over {@code channel}: the file's SHA-256 (its content
   * key) and the MD5 of each part (its Content-MD5 and, on resume, the ETag a stored part must
   * have).
   */
  private PartDigests partDigests(Path file, FileChannel channel, long size) throws IOException {
    MessageDigest sha = Digests.sha256();
    MessageDigest md5 = Digests.md5();
    List<byte[]> parts = new ArrayList<>();
    java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(1 << 20);
    long position = 0;
    long partEnd = Math.min(partSize, size);
    while (position < size) {
      buffer.clear().limit((int) Math.min(buffer.capacity(), partEnd - position));
      int n = channel.read(buffer, position);
      if (n <= 0) {
        throw new IOException(file + " changed while it was read (" + size + " then "
            + position + " bytes)");
      }
      sha.update(buffer.array(), 0, n);
      md5.update(buffer.array(), 0, n);
      position += n;
      if (position == partEnd) {
        parts.add(md5.digest());
        partEnd = Math.min(partEnd + partSize, size);
      }
    }
    if (channel.size() != size) {
      throw new IOException(file + " changed while it was read (" + size + " then "
          + channel.size() + " bytes)");
    }
    return new PartDigests(HexFormat.of().formatHex(sha.digest()), parts);
  }

  /** A file's SHA-256 and the MD5 of each of its parts. */
  private record PartDigests(String sha256, List<byte[]> parts) {}

  private void abort(String key, String uploadId, Path resume, Exception cause) {
    try {
      s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId));
    } catch (SdkException e) {
      cause.addSuppressed(e);
    }
    try {
      forget(resume);
    } catch (IOException e) {
      cause.addSuppressed(e);
    }
  }

  private Map<Integer, Part> listParts(String key, String uploadId) {
    Map<Integer, Part> parts = new HashMap<>();
    try {
      for (var page : s3.listPartsPaginator(r -> r.bucket(bucket).key(key).uploadId(uploadId))) {
        for (Part part : page.parts()) {
          parts.put(part.partNumber(), part);
        }
      }
    } catch (NoSuchUploadException e) {
      return null;
    }
    return parts;
  }

  /** The upload id remembered for this file, or null; a stale record is dropped. */
  private String resumedUpload(Path resume, String key) throws IOException {
    if (resume == null || !Files.exists(resume)) {
      return null;
    }
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(resume)) {
      p.load(in);
    }
    String id = p.getProperty("uploadId");
    if (id == null || !key.equals(p.getProperty("key"))) {
      forget(resume);
      return null;
    }
    return id;
  }

  private void remember(Path resume, String key, String uploadId) throws IOException {
    if (resume == null) {
      return;
    }
    Files.createDirectories(resume.getParent());
    Path tmp = resume.resolveSibling(resume.getFileName() + ".tmp");
    Files.writeString(tmp, "key=" + key + "\nuploadId=" + uploadId + "\n",
        StandardCharsets.ISO_8859_1);
    Files.move(tmp, resume, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static void forget(Path resume) throws IOException {
    if (resume != null) {
      Files.deleteIfExists(resume);
    }
  }

  private Path resumeFile(Path file, long size, long modified) throws IOException {
    if (resumeDir == null) {
      return null;
    }
    String identity = descriptor.root() + "\n" + file.toRealPath() + "\n" + size + "\n" + modified;
    byte[] h = Digests.sha256().digest(identity.getBytes(StandardCharsets.UTF_8));
    return resumeDir.resolve(HexFormat.of().formatHex(h, 0, 16) + ".upload");
  }

  private Long storedSize(String key) {
    try {
      HeadObjectResponse head = s3.headObject(r -> r.bucket(bucket).key(key));
      return head.contentLength();
    } catch (NoSuchKeyException e) {
      return null;
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return null;
      }
      throw e;
    }
  }

  private String digest(Path file, long size) throws IOException {
    MessageDigest sha = Digests.sha256();
    byte[] buffer = new byte[1 << 20];
    long read = 0;
    try (InputStream in = Files.newInputStream(file)) {
      for (int n; (n = in.read(buffer)) > 0; ) {
        sha.update(buffer, 0, n);
        read += n;
      }
    }
    if (read != size) {
      throw new IOException(file + " changed while it was read (" + size + " then " + read
          + " bytes)");
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  /**
   * The whole object is one GET whose size and SHA-256 are checked at EOF; a part of it is one
   * ranged GET whose {@code Content-Range} and length are checked.
   *
   * @throws IllegalArgumentException if {@code location} is outside this stage or the range is
   *     empty or outside the object, before any request
   */
  @Override
  public InputStream open(DataLocation location, long from, long toExclusive) throws IOException {
    String key = keyOf(location);
    ObjectStage.checkRange(location, from, toExclusive);
    boolean whole = from == 0 && toExclusive == location.size();
    String range = "bytes=" + from + "-" + (toExclusive - 1);
    ResponseInputStream<GetObjectResponse> in;
    try {
      in = whole ? s3.getObject(r -> r.bucket(bucket).key(key))
          : s3.getObject(r -> r.bucket(bucket).key(key).range(range));
    } catch (NoSuchKeyException e) {
      NoSuchFileException missing = new NoSuchFileException(location.uri().toString());
      missing.initCause(e);
      throw missing;
    } catch (SdkException e) {
      throw new IOException("read of " + location.uri() + " failed: " + e.getMessage(), e);
    }
    GetObjectResponse response = in.response();
    long length = toExclusive - from;
    String expected = "bytes " + from + "-" + (toExclusive - 1) + "/" + location.size();
    if (!whole && !expected.equals(response.contentRange())) {
      in.abort();
      throw new IOException(location.uri() + " answered range " + range + " with Content-Range "
          + response.contentRange() + ", expected " + expected);
    }
    if (response.contentLength() != null && response.contentLength() != length) {
      in.abort();
      throw new IOException(location.uri() + " returned " + response.contentLength()
          + " bytes, expected " + length);
    }
    return new VerifyingInputStream(in, location, length, whole);
  }

  @Override
  public boolean owns(DataLocation location) {
    URI uri = location.uri();
    if (!"s3".equals(uri.getScheme()) || !bucket.equals(uri.getHost())
        || uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getPort() != -1
        || uri.getRawUserInfo() != null) {
      return false;
    }
    String path = uri.getPath();
    return path != null && path.startsWith("/" + prefix)
        && ObjectStage.CONTENT_KEY.matcher(path.substring(1 + prefix.length())).matches();
  }

  /**
   * @throws IllegalArgumentException if {@code location} is outside this stage or {@code ttl} is
   *     not positive or longer than {@link #MAX_PRESIGN_TTL}
   */
  @Override
  public URI presign(DataLocation location, Duration ttl) {
    String key = keyOf(location);
    if (ttl == null || ttl.isNegative() || ttl.isZero() || ttl.compareTo(MAX_PRESIGN_TTL) > 0) {
      throw new IllegalArgumentException("presign ttl must be positive and at most "
          + MAX_PRESIGN_TTL + ", got " + ttl);
    }
    if (ttl.toSeconds() < 1) {
      throw new IllegalArgumentException("presign ttl must be at least one second, got " + ttl);
    }
    try {
      return presigner.presignGetObject(p -> p.signatureDuration(ttl)
              .getObjectRequest(g -> g.bucket(bucket).key(key)))
          .url().toURI();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException("presigned URL is not a URI", e);
    }
  }

  private String keyOf(DataLocation location) {
    if (!owns(location)) {
      throw new IllegalArgumentException(location.uri() + " is not an object of stage "
          + descriptor.root());
    }
    return location.uri().getPath().substring(1);
  }

  private URI uriOf(String key) {
    return URI.create("s3://" + bucket + "/" + key);
  }

  @Override
  public StageDescriptor descriptor() {
    return descriptor;
  }

  @Override
  public void close() {
    try {
      presigner.close();
    } finally {
      s3.close();
    }
  }
}
