package dev.lake.sdk;

import dev.lake.engine.DataLocation;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
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
 * {@link #put} reads the file twice: a first local pass computes SHA-256 and size (local reads are
 * several times faster than the network), then the file streams as a multipart upload straight to
 * {@code objects/<hh>/<sha256>}. S3 makes a multipart object visible only at
 * CompleteMultipartUpload, so the key is published atomically and only when complete; no
 * temporary object and no server-side copy (which S3 limits to 5 GB) are needed. The second pass
 * recomputes the digest and aborts if the file changed in between. Memory is one part buffer.
 * Files of at most one part go as a single PutObject (with Content-MD5).
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
    String sha256 = digest(file, size);
    String key = prefix + ObjectStage.contentKey(sha256);
    DataLocation location = new DataLocation(uriOf(key), mimeType, size, sha256);
    try {
      Long stored = storedSize(key);
      if (stored != null && stored == size) {
        progress.onProgress(size, size);
        return location;
      }
      if (size <= partSize) {
        putSingle(file, key, size, sha256);
      } else {
        putMultipart(file, key, size, modified, sha256, progress);
      }
    } catch (SdkException e) {
      throw new IOException("upload of " + file + " to " + location.uri() + " failed: "
          + e.getMessage(), e);
    }
    progress.onProgress(size, size);
    return location;
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

  private void putMultipart(Path file, String key, long size, long modified, String sha256,
      UploadProgress progress) throws IOException {
    Path resume = resumeFile(file, size, modified);
    String uploadId = resumedUpload(resume, key);
    Map<Integer, Part> stored = uploadId == null ? null : listParts(key, uploadId);
    if (stored == null) {
      stored = Map.of();
      forget(resume);
      uploadId = s3.createMultipartUpload(r -> r.bucket(bucket).key(key)).uploadId();
      remember(resume, key, uploadId);
    }
    String id = uploadId;
    Map<Integer, Part> done0 = stored;
    boolean resumable = true;
    try {
      List<CompletedPart> parts = new ArrayList<>();
      byte[] buffer = new byte[partSize]; // the only buffer: memory is one part
      MessageDigest sha = Digests.sha256();
      MessageDigest md5 = Digests.md5();
      long done = 0;
      try (InputStream in = Files.newInputStream(file)) {
        for (int number = 1; done < size; number++) {
          int length = in.readNBytes(buffer, 0, (int) Math.min(partSize, size - done));
          if (length == 0) {
            resumable = false;
            throw new IOException(file + " changed during upload (size)");
          }
          sha.update(buffer, 0, length);
          md5.update(buffer, 0, length);
          byte[] partMd5 = md5.digest();
          String etag = "\"" + HexFormat.of().formatHex(partMd5) + "\"";
          Part old = done0.get(number);
          if (old == null || old.size() != length || !etag.equals(old.eTag())) {
            int n = number;
            int len = length;
            etag = s3.uploadPart(r -> r.bucket(bucket).key(key).uploadId(id).partNumber(n)
                    .contentLength((long) len)
                    .contentMD5(Base64.getEncoder().encodeToString(partMd5)),
                RequestBody.fromContentProvider(() -> new ByteArrayInputStream(buffer, 0, len),
                    len, "application/octet-stream")).eTag();
            afterPart.accept(number);
          }
          parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
          done += length;
          progress.onProgress(done, size);
        }
        if (in.read() != -1) {
          resumable = false;
          throw new IOException(file + " changed during upload (size)");
        }
      }
      if (!HexFormat.of().formatHex(sha.digest()).equals(sha256)) {
        resumable = false;
        throw new IOException(file + " changed during upload (content)");
      }
      resumable = false; // a rejected completion is not retried part by part
      s3.completeMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(id)
          .multipartUpload(m -> m.parts(parts)));
      forget(resume);
    } catch (IOException | RuntimeException e) {
      if (!resumable) {
        abort(key, id, resume, e);
      }
      throw e;
    }
  }

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
