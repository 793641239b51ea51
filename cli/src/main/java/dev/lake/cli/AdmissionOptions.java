package dev.lake.cli;

import dev.lake.flight.LakeFlightServer;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * How many queries a Flight SQL server runs at once, per tenant and in all, and how long and how
 * many wait (docs/query-tier.md, "Admission and fairness").
 */
final class AdmissionOptions {

  @Option(names = "--max-concurrent-queries",
      defaultValue = "" + LakeFlightServer.DEFAULT_MAX_CONCURRENT_QUERIES,
      description = "Queries (planning, or a DoGet until its stream ends) running at once in this"
          + " process (default: ${DEFAULT-VALUE}).")
  int maxConcurrent;

  @Option(names = "--max-queries-per-tenant",
      defaultValue = "" + LakeFlightServer.DEFAULT_MAX_QUERIES_PER_TENANT,
      description = "Queries of one tenant running at once; more wait, tenants taking turns"
          + " (default: ${DEFAULT-VALUE}).")
  int maxPerTenant;

  @Option(names = "--max-queued-queries",
      defaultValue = "" + LakeFlightServer.DEFAULT_MAX_QUEUED_QUERIES,
      description = "Queries waiting for a place, all tenants together; over it a query is"
          + " refused with RESOURCE_EXHAUSTED, the tenant waiting most giving way first"
          + " (default: ${DEFAULT-VALUE}; 0: never wait).")
  int maxQueued;

  @Option(names = "--max-queue-wait", defaultValue = "30s",
      converter = QueryLimits.DurationConverter.class,
      description = "Longest a query waits for a place before RESOURCE_EXHAUSTED (500ms, 30s, 2m"
          + " or ISO-8601; default: ${DEFAULT-VALUE}).")
  Duration maxWait;

  /** Refuses bad values as picocli reports a bad option, naming it. */
  void check(CommandLine commandLine) {
    try {
      apply(LakeFlightServer.builder());
    } catch (IllegalArgumentException e) {
      String message = e.getMessage()
          .replace("maxConcurrentQueries", "--max-concurrent-queries")
          .replace("maxQueriesPerTenant", "--max-queries-per-tenant")
          .replace("maxQueuedQueries", "--max-queued-queries")
          .replace("maxQueueWait", "--max-queue-wait");
      throw new CommandLine.ParameterException(commandLine, message);
    }
  }

  LakeFlightServer.Builder apply(LakeFlightServer.Builder builder) {
    return builder.admission(maxConcurrent, maxPerTenant, maxQueued, maxWait);
  }
}
