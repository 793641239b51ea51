package dev.lake.flight;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The Query tier's admission and streaming meters, tagged by tenant (tenants come from the
 * principals file, so the tag is bounded):
 *
 * <ul>
 *   <li>{@code lake_query_queue_depth}, {@code lake_queries_running}: queries waiting for and
 *       holding an admission place now;
 *   <li>{@code lake_query_admissions_refused_total{tenant,reason}}: queries refused ({@code
 *       queue_full}, {@code wait_expired});
 *   <li>{@code lake_query_queue_wait_seconds{tenant}}: how long admitted queries waited (histogram);
 *   <li>{@code lake_query_seconds{tenant}}: a {@code DoGet} from its start (queue wait included) to
 *       its end (histogram);
 *   <li>{@code lake_query_streamed_bytes_total{tenant}}: {@code FlightData} bytes a {@code DoGet}
 *       handed to the socket.
 * </ul>
 * Thread-safe.
 */
final class QueryMeters implements QueryAdmission.RefusalListener {

  private final MeterRegistry registry;
  private final Map<String, Counter> streamed = new ConcurrentHashMap<>();
  private final Map<String, Timer> latency = new ConcurrentHashMap<>();
  private final Map<String, Timer> waits = new ConcurrentHashMap<>();

  QueryMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Publishes the admission's gauges. */
  void watch(QueryAdmission admission) {
    registry.gauge("lake_query_queue_depth", admission, QueryAdmission::queued);
    registry.gauge("lake_queries_running", admission, QueryAdmission::running);
  }

  @Override
  public void refused(String tenant, QueryAdmission.Reason reason) {
    Counter.builder("lake_query_admissions_refused")
        .description("queries refused admission, by tenant and reason")
        .tags("tenant", tenant, "reason", reason.name().toLowerCase(java.util.Locale.ROOT))
        .register(registry)
        .increment();
  }

  void waited(String tenant, long nanos) {
    waits.computeIfAbsent(tenant, t -> Timer.builder("lake_query_queue_wait")
        .description("time admitted queries waited for a place")
        .tags("tenant", t).publishPercentileHistogram().register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  void finished(String tenant, long nanos) {
    latency.computeIfAbsent(tenant, t -> Timer.builder("lake_query")
        .description("DoGet duration, call start (queue wait included) to its end")
        .tags("tenant", t).publishPercentileHistogram().register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  void streamed(String tenant, long bytes) {
    streamed.computeIfAbsent(tenant, t -> Counter.builder("lake_query_streamed_bytes")
        .description("FlightData bytes DoGet streams handed to the socket")
        .tags("tenant", t).register(registry))
        .increment(bytes);
  }
}
