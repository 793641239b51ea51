package dev.lake.sdk;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The SDK in a process of its own, started by {@link LakeClientProcessTest}: one FILE insert
 * {@code INSERT INTO robots.episodes (id, video) VALUES (42, <file>)} through the lake server at
 * {@code args[0]} of the file {@code args[1]}, with the resume directory {@code args[2]} and the
 * S3 test credentials. Prints {@code inserted <rows>} and exits 0; a {@link LakeException}
 * prints {@code failed <class> <message>} and exits 3.
 *
 * <p>With a fourth argument {@code --heap} it watches its own heap meanwhile and then prints
 * {@code heap before=<bytes> sampled=<bytes> afterGc=<bytes> poolPeaks=<bytes> max=<bytes>
 * allocated=<bytes>}: the
 * heap in use after a full collection just before the upload (connected, the table's statement
 * prepared once), the most heap used at any sample (every few milliseconds, from a daemon
 * thread), the most heap still in use after any young or full collection (live data; a
 * concurrent cycle's pauses collect nothing and are left out), and the sum of the heap pools'
 * peaks (a bound of the samples), and the heap bytes all threads allocated during the upload.
 */
final class UploadMain {
  private UploadMain() {}

  static final int FAILED = 3;

  public static void main(String[] args) throws Exception {
    HeapWatch heap = args.length > 3 && args[3].equals("--heap") ? HeapWatch.start() : null;
    try (LakeClient lake = LakeClient.connect(args[0], Credentials.none(),
        S3TestServer.CREDENTIALS, Path.of(args[2]))) {
      if (heap != null) {
        heap.before(lake);
      }
      long rows = lake.execute("INSERT INTO robots.episodes (id, video) VALUES (?, ?)", 42L,
          FileUpload.of(Path.of(args[1]), "application/x-mcap"));
      System.out.println("inserted " + rows);
    } catch (LakeException e) {
      System.out.println("failed " + e.getClass().getName() + " " + e.getMessage());
      System.out.flush();
      System.exit(FAILED);
    }
    if (heap != null) {
      System.out.println(heap.report());
    }
    System.out.flush();
    System.exit(0); // Flight's non-daemon threads would keep the JVM up a while
  }

  /** The heap used while the process runs, sampled and after each collection. */
  private static final class HeapWatch {
    private final AtomicLong sampled = new AtomicLong();
    private final AtomicLong afterGc = new AtomicLong();
    private long before;
    private long allocatedBefore;
    private final List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(pool -> pool.getType() == MemoryType.HEAP).toList();

    static HeapWatch start() {
      HeapWatch watch = new HeapWatch();
      List<String> names = watch.pools.stream().map(MemoryPoolMXBean::getName).toList();
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        ((NotificationEmitter) gc).addNotificationListener((notification, handback) -> {
          if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
              notification.getType())) {
            GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from(
                (CompositeData) notification.getUserData());
            if (!info.getGcAction().equals("end of minor GC")
                && !info.getGcAction().equals("end of major GC")) {
              return;
            }
            long live = info.getGcInfo().getMemoryUsageAfterGc().entrySet().stream()
                .filter(e -> names.contains(e.getKey()))
                .mapToLong(e -> e.getValue().getUsed()).sum();
            watch.afterGc.accumulateAndGet(live, Math::max);
          }
        }, null, null);
      }
      Thread sampler = new Thread(() -> {
        var memory = ManagementFactory.getMemoryMXBean();
        while (true) {
          watch.sampled.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
          try {
            Thread.sleep(2);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "heap-sampler");
      sampler.setDaemon(true);
      sampler.start();
      return watch;
    }

    /** Warms the client up (stage named, a statement prepared) and measures the live heap. */
    void before(LakeClient lake) {
      try (QueryResult result = lake.query("SELECT id FROM robots.episodes WHERE id = ?", 0L)) {
        result.rows().forEach(row -> { });
      }
      System.gc();
      before = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      allocatedBefore = allocated();
    }

    /** Heap bytes allocated so far by every thread. */
    private static long allocated() {
      return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
          .getTotalThreadAllocatedBytes();
    }

    String report() {
      long peaks = pools.stream().map(MemoryPoolMXBean::getPeakUsage)
          .mapToLong(MemoryUsage::getUsed).sum();
      return "heap before=" + before + " sampled=" + sampled.get() + " afterGc=" + afterGc.get() + " poolPeaks="
          + peaks + " max=" + Runtime.getRuntime().maxMemory() + " allocated="
          + (allocated() - allocatedBefore);
    }
  }
}
