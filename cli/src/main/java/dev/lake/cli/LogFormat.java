package dev.lake.cli;

import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * {@code --log-format text|json} of the server commands. The choice must be made before the
 * first logger exists, so {@link #configure} reads it from the raw arguments (and
 * {@code LAKE_LOG_FORMAT}) before picocli parses them; this mixin declares the option so that
 * it is accepted and documented.
 */
final class LogFormat {

  private static final String OPTION = "--log-format";

  @Option(names = OPTION, paramLabel = "text|json", defaultValue = "${env:LAKE_LOG_FORMAT:-text}",
      description = "Log lines on standard error as text or as one JSON object per line"
          + " (default: $LAKE_LOG_FORMAT or ${DEFAULT-VALUE}).")
  String format;

  /** Selects logback's configuration from {@code args} and the environment; call first in main. */
  static void configure(String[] args) {
    String format = System.getenv("LAKE_LOG_FORMAT");
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals(OPTION) && i + 1 < args.length) {
        format = args[i + 1];
      } else if (args[i].startsWith(OPTION + "=")) {
        format = args[i].substring(OPTION.length() + 1);
      }
    }
    if (format != null && format.toLowerCase(Locale.ROOT).equals("json")
        && System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", "logback-json.xml");
    }
  }

  /** Refuses a value other than text or json, as picocli reports a bad option. */
  void check(picocli.CommandLine commandLine) {
    String value = format.toLowerCase(Locale.ROOT);
    if (!value.equals("text") && !value.equals("json")) {
      throw new picocli.CommandLine.ParameterException(commandLine,
          "--log-format must be text or json, got '" + format + "'");
    }
  }
}
