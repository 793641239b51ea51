package dev.lake.exec.fn;

import java.util.List;

/**
 * A function of the {@link FunctionRegistry}: its names and the forms it can be called in. The
 * validator sees exactly the registered functions, so a statement validates only if the engine
 * can run it.
 *
 * <p>Scalar functions ({@link ScalarFunction}) and aggregates ({@link AggregateFunction}) are
 * registered; an aggregate brings its state or typed kernel and how its partial results combine
 * ({@link AggregateFunction#split()}), so the planner splits every aggregate without a list of
 * which ones split.
 */
public interface RegisteredFunction {

  /** The name the function is documented under, lower case ({@code char_length}). */
  String name();

  /** Other names it answers to, lower case ({@code length}, {@code character_length}). */
  List<String> aliases();

  /** The forms it can be called in, tried in order; the first that takes a call's arguments wins. */
  List<Signature> signatures();
}
