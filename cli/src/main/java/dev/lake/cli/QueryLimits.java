package dev.lake.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * What one SQL query may use on a {@code lake dev} server: a deadline (none: clients may still
 * set their own gRPC deadline), an Arrow memory budget and the workers of a parallel plan.
 *
 * @param timeout null for no server-side deadline
 */
record QueryLimits(Duration timeout, long memoryBytes, int threads) {

  static QueryLimits defaults() {
    return new QueryLimits(null, Long.MAX_VALUE, Runtime.getRuntime().availableProcessors());
  }

  /** Reads {@code 30s}, {@code 500ms}, {@code 2m}, {@code 1h} or ISO-8601 ({@code PT30S}). */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
      String v = value.trim().toLowerCase(Locale.ROOT);
      Matcher m = SHORT.matcher(v);
      Duration d;
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        d = switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          default -> Duration.ofHours(n);
        };
      } else {
        try {
          d = Duration.parse(value.trim());
        } catch (RuntimeException e) {
          throw new CommandLine.TypeConversionException("'" + value
              + "' is not a duration: write 500ms, 30s, 2m, 1h or ISO-8601 such as PT30S");
        }
      }
      if (d.isZero() || d.isNegative()) {
        throw new CommandLine.TypeConversionException("'" + value + "' must be longer than zero");
      }
      return d;
    }
  }

  /** Reads a byte count with an optional binary suffix: {@code 1048576}, {@code 512m}, {@code 2g}. */
  static final class SizeConverter implements CommandLine.ITypeConverter<Long> {
    private static final Pattern SIZE = Pattern.compile("(\\d+)([kmgt]?)i?b?");

    @Override
    public Long convert(String value) {
      Matcher m = SIZE.matcher(value.trim().toLowerCase(Locale.ROOT));
      if (!m.matches()) {
        throw new CommandLine.TypeConversionException("'" + value
            + "' is not a size: write bytes or a number with k, m, g or t (512m, 2g)");
      }
      int shift = switch (m.group(2)) {
        case "k" -> 10;
        case "m" -> 20;
        case "g" -> 30;
        case "t" -> 40;
        default -> 0;
      };
      long n;
      try {
        n = Long.parseLong(m.group(1));
      } catch (NumberFormatException e) {
        throw new CommandLine.TypeConversionException("'" + value + "' is too large");
      }
      if (n == 0) {
        throw new CommandLine.TypeConversionException("'" + value + "' must be more than zero bytes");
      }
      if (n > Long.MAX_VALUE >> shift) {
        throw new CommandLine.TypeConversionException("'" + value + "' is too large");
      }
      return n << shift;
    }
  }
}
