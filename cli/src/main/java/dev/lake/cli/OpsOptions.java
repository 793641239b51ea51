package dev.lake.cli;

import picocli.CommandLine;
import picocli.CommandLine.Option;

/** The operator options every server command takes: log format, metrics port, trace export. */
final class OpsOptions {

  @CommandLine.Mixin LogFormat logFormat;

  @Option(names = "--metrics-port",
      description = "Serve /metrics (Prometheus) and /health/live and /health/ready over HTTP on"
          + " this loopback port; 0 picks a free one (default: none).")
  Integer metricsPort;

  @Option(names = "--otlp-endpoint", defaultValue = "${env:OTEL_EXPORTER_OTLP_ENDPOINT}",
      description = "Export a trace span per call (child of the client's W3C traceparent) to this"
          + " OTLP/HTTP collector, e.g. http://127.0.0.1:4318 (default: $OTEL_EXPORTER_OTLP_ENDPOINT;"
          + " unset: no export).")
  String otlpEndpoint;

  /** Refuses bad values as picocli reports a bad option. */
  void check(CommandLine commandLine) {
    logFormat.check(commandLine);
    if (otlpEndpoint != null && !otlpEndpoint.isBlank()) {
      try {
        dev.lake.flight.ops.CallTracing.checkEndpoint(java.net.URI.create(otlpEndpoint.trim()));
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(commandLine, "--otlp-endpoint: " + e.getMessage());
      }
    }
    if (metricsPort != null && (metricsPort < 0 || metricsPort > 65_535)) {
      throw new CommandLine.ParameterException(commandLine,
          "--metrics-port must be 0..65535, got " + metricsPort);
    }
  }

  /** {@code builder} exporting traces when {@code --otlp-endpoint} is set. */
  dev.lake.flight.LakeFlightServer.Builder apply(dev.lake.flight.LakeFlightServer.Builder builder) {
    if (otlpEndpoint != null && !otlpEndpoint.isBlank()) {
      builder.otlpTraces(java.net.URI.create(otlpEndpoint.trim()));
    }
    return builder;
  }
}
