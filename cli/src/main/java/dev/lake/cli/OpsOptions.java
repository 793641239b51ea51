package dev.lake.cli;

import picocli.CommandLine;
import picocli.CommandLine.Option;

/** The operator options every server command takes: log format and the metrics port. */
final class OpsOptions {

  @CommandLine.Mixin LogFormat logFormat;

  @Option(names = "--metrics-port",
      description = "Serve /metrics (Prometheus) and /health/live and /health/ready over HTTP on"
          + " this loopback port; 0 picks a free one (default: none).")
  Integer metricsPort;

  /** Refuses bad values as picocli reports a bad option. */
  void check(CommandLine commandLine) {
    logFormat.check(commandLine);
    if (metricsPort != null && (metricsPort < 0 || metricsPort > 65_535)) {
      throw new CommandLine.ParameterException(commandLine,
          "--metrics-port must be 0..65535, got " + metricsPort);
    }
  }
}
