package dev.lake.bench.flight;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A benchmark runner's {@code --flag value} options, checked against the flags it knows. */
final class Flags {

  private final Map<String, String> given;

  private Flags(Map<String, String> given) {
    this.given = given;
  }

  /**
   * The options in {@code args}; empty-handed ({@code null}) after printing {@code usage} for
   * {@code --help} or {@code -h}.
   *
   * @throws IllegalArgumentException for a flag not in {@code known} or one without a value
   */
  static Flags parse(String[] args, String usage, List<String> known) {
    Map<String, String> given = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      if (args[i].equals("--help") || args[i].equals("-h")) {
        System.out.print(usage);
        return null;
      }
      if (!known.contains(args[i])) {
        throw new IllegalArgumentException("unknown option " + args[i] + "\n" + usage);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + args[i] + " needs a value\n" + usage);
      }
      given.put(args[i], args[i + 1]);
    }
    return new Flags(given);
  }

  double number(String flag, double fallback) {
    return given.containsKey(flag) ? Double.parseDouble(given.get(flag)) : fallback;
  }

  int integer(String flag, int fallback) {
    return given.containsKey(flag) ? Integer.parseInt(given.get(flag)) : fallback;
  }

  long count(String flag, long fallback) {
    return given.containsKey(flag) ? Long.parseLong(given.get(flag)) : fallback;
  }
}
