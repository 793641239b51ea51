package dev.lake.cli.sql;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import picocli.CommandLine;

/** How {@code lake sql} writes results: {@code table} for people, {@code csv} and {@code json} for scripts. */
public enum ResultFormat {
  TABLE {
    @Override
    ResultPrinter printer(PrintWriter out) {
      return new TablePrinter(out);
    }
  },
  CSV {
    @Override
    ResultPrinter printer(PrintWriter out) {
      return new CsvPrinter(out);
    }
  },
  JSON {
    @Override
    ResultPrinter printer(PrintWriter out) {
      return new JsonLinesPrinter(out);
    }
  };

  abstract ResultPrinter printer(PrintWriter out);

  /** Whether row counts, timings and update counts go beside the results (not in csv or json). */
  boolean decorated() {
    return this == TABLE;
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code table}, {@code csv} or {@code json}, in any case. */
  static final class Converter implements CommandLine.ITypeConverter<ResultFormat> {
    @Override
    public ResultFormat convert(String value) {
      for (ResultFormat format : values()) {
        if (format.name().equalsIgnoreCase(value.strip())) {
          return format;
        }
      }
      throw new CommandLine.TypeConversionException("'" + value + "' is not a format; expected one of "
          + Arrays.stream(values()).map(ResultFormat::toString).collect(Collectors.joining(", ")));
    }
  }
}
