package dev.lake.catalog;

import java.util.regex.Pattern;

/**
 * A table of the registry: namespace and name. Both are identifiers of 1..128 ASCII letters,
 * digits and underscores, not starting with a digit; case is kept as given.
 */
public record TableIdent(String namespace, String name) {

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

  public TableIdent {
    checkIdentifier("namespace", namespace);
    checkIdentifier("table name", name);
  }

  public static TableIdent of(String namespace, String name) {
    return new TableIdent(namespace, name);
  }

  /**
   * Checks one identifier.
   *
   * @throws InvalidNameException naming the identifier and the rule it breaks
   */
  public static void checkIdentifier(String what, String value) {
    if (value == null || !IDENTIFIER.matcher(value).matches()) {
      throw new InvalidNameException(what + " '" + value + "' is not a valid identifier: use 1 to"
          + " 128 letters, digits or underscores, not starting with a digit");
    }
  }

  @Override
  public String toString() {
    return namespace + "." + name;
  }
}
