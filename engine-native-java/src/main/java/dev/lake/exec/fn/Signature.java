package dev.lake.exec.fn;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One form a function can be called in: its parameters, the last of which may repeat
 * ({@code variadic}: zero or more further arguments like it, as in {@code concat(TEXT...)}).
 */
public record Signature(List<Param> params, boolean variadic) {

  public Signature {
    params = List.copyOf(params);
    if (variadic && params.isEmpty()) {
      throw new IllegalArgumentException("a variadic signature needs a parameter to repeat");
    }
  }

  public static Signature of(Param... params) {
    return new Signature(List.of(params), false);
  }

  /** The parameters, then any number of arguments like the last one (at least one in all). */
  public static Signature variadic(Param... params) {
    return new Signature(List.of(params), true);
  }

  /** Whether a call with {@code n} arguments has this form's arity. */
  public boolean takes(int n) {
    return variadic ? n >= params.size() : n == params.size();
  }

  /** The parameter argument {@code i} of a call is bound to. */
  public Param param(int i) {
    return i < params.size() ? params.get(i) : params.getLast();
  }

  /** {@code name(VARCHAR, BIGINT)}, {@code name(ANY...)}, as messages show it. */
  public String describe(String name) {
    return name + "(" + params.stream().map(p -> p.spelling).collect(Collectors.joining(", "))
        + (variadic ? "..." : "") + ")";
  }
}
