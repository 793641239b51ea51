package dev.lake.sdk;

import java.io.InputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.gaul.s3proxy.blobstore.domain.MultipartUpload;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * An S3Proxy store that records the multipart parts it stores and the upload ids it hands out and
 * aborts, and can hold the upload of one part number until the test releases it: a deterministic
 * "the client is in the middle of its upload" for killing or disturbing it there.
 */
final class PartGate extends ForwardingBlobStore {

  private final List<Integer> stored = new CopyOnWriteArrayList<>();
  private final List<String> uploadIds = new CopyOnWriteArrayList<>();
  private final List<String> aborted = new CopyOnWriteArrayList<>();
  private volatile Hold hold;

  PartGate(BlobStore delegate) {
    super(delegate);
  }

  /** One held part upload: the next upload of part {@code part} waits for {@link #release}. */
  static final class Hold {
    private final int part;
    private final CountDownLatch reached = new CountDownLatch(1);
    private final CompletableFuture<Boolean> released = new CompletableFuture<>();

    private Hold(int part) {
      this.part = part;
    }

    /** Waits until the part's upload arrived and is being held; false if {@code process} died. */
    boolean awaitHeld(Process process) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (System.nanoTime() < deadline) {
        if (reached.await(100, TimeUnit.MILLISECONDS)) {
          return true;
        }
        if (!process.isAlive()) {
          return reached.getCount() == 0;
        }
      }
      throw new AssertionError("part " + part + " was not uploaded within 5 minutes");
    }

    /** Lets the held upload go on ({@code store}) or fail without storing the part. */
    void release(boolean store) {
      released.complete(store);
    }
  }

  /** Holds the next upload of part number {@code part} (1-based). */
  Hold hold(int part) {
    Hold next = new Hold(part);
    hold = next;
    return next;
  }

  /** The numbers of the parts stored so far, in order. */
  List<Integer> stored() {
    return List.copyOf(stored);
  }

  /** Upload ids handed out so far, oldest first. */
  List<String> uploadIds() {
    return List.copyOf(uploadIds);
  }

  @Override
  public MultipartUpload initiateMultipartUpload(CreateMultipartUploadRequest request) {
    MultipartUpload upload = super.initiateMultipartUpload(request);
    uploadIds.add(upload.id());
    return upload;
  }

  /** Upload ids aborted so far. */
  List<String> aborted() {
    return List.copyOf(aborted);
  }

  @Override
  public void abortMultipartUpload(MultipartUpload upload) {
    super.abortMultipartUpload(upload);
    aborted.add(upload.id());
  }

  @Override
  public UploadPartResponse uploadMultipartPart(MultipartUpload upload, UploadPartRequest request,
      InputStream body) {
    Hold current = hold;
    if (current != null && request.partNumber() == current.part) {
      hold = null;
      current.reached.countDown();
      if (!current.released.join()) {
        throw new IllegalStateException("part " + current.part + " dropped by the test");
      }
    }
    UploadPartResponse response = super.uploadMultipartPart(upload, request, body);
    stored.add(request.partNumber());
    return response;
  }

  @Override
  public void close() {
    Hold current = hold;
    if (current != null) {
      current.release(false);
    }
    super.close();
  }
}
