package dev.lake.sql.slt;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Where the sqllogictest scripts are: SQLite's corpus beside the repository ({@code
 * ../shared/sqllogictest} from the repository root, found by walking up from the module
 * directory, or the directory named by {@code -Dlake.slt.corpus}), and the bounded sample
 * committed under {@code src/test/resources/sqllogictest}. Also runs a list of scripts and sums
 * their results.
 */
public final class SltCorpus {
  private SltCorpus() {}

  /** The committed copies of corpus files, byte for byte (see the README beside them). */
  public static final Path SAMPLE = Paths.get("src", "test", "resources", "sqllogictest");

  /** The full corpus (the directory that holds {@code test/}), if it is on this machine. */
  public static Optional<Path> full() {
    String configured = System.getProperty("lake.slt.corpus");
    if (configured != null && !configured.isBlank()) {
      return Optional.of(Paths.get(configured)).filter(p -> Files.isDirectory(p.resolve("test")));
    }
    for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("shared").resolve("sqllogictest");
      if (Files.isDirectory(candidate.resolve("test"))) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** Every {@code .test} / {@code .slt} file under {@code dir}, in path order. */
  public static List<Path> scripts(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile)
          .filter(p -> p.toString().endsWith(".test") || p.toString().endsWith(".slt"))
          .sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One fresh database per script; prints each script's summary line as it finishes. */
  public static List<SltResult> run(Path root, List<Path> files, Supplier<? extends SltDatabase> databases,
      String databaseName) {
    List<SltResult> results = new ArrayList<>();
    for (Path file : files) {
      SltScript script;
      try {
        script = SltScript.read(file, root.relativize(file).toString());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      try (SltDatabase database = databases.get()) {
        SltResult result = SltRunner.run(script, database, databaseName);
        System.out.println(result.summary());
        results.add(result);
      }
    }
    return results;
  }

  /** Queries passed over queries asked, over all results. */
  public static double passRate(List<SltResult> results) {
    long passed = results.stream().mapToLong(r -> r.get(SltResult.Outcome.PASSED)).sum();
    long queries = results.stream().mapToLong(SltResult::queries).sum();
    return queries == 0 ? 0 : (double) passed / queries;
  }

  /** A total line: the outcome counts summed over all results. */
  public static String total(List<SltResult> results, String databaseName) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(java.util.Locale.ROOT, "%-7s %-45s %6.2f%%", databaseName, "TOTAL",
        100 * passRate(results)));
    for (SltResult.Outcome o : SltResult.Outcome.values()) {
      b.append("  ").append(o.name().toLowerCase(java.util.Locale.ROOT)).append(' ')
          .append(results.stream().mapToLong(r -> r.get(o)).sum());
    }
    b.append("  (skipped ").append(results.stream().mapToLong(SltResult::skipped).sum()).append(')');
    return b.toString();
  }
}
