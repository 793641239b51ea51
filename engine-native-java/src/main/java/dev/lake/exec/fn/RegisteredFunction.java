package dev.lake.exec.fn;

import java.util.List;

/**
 * A function of the {@link FunctionRegistry}: its names and the forms it can be called in. The
 * validator sees exactly the registered functions, so a statement validates only if the engine
 * can run it.
 *
 * <p>Scalar functions ({@link ScalarFunction}) are registered today. Aggregates and window
 * functions are meant to be further sub-interfaces beside it: an aggregate then brings its
 * partial state, the step adding a batch to it, the merge of two partial states and the final
 * value (DataFusion's {@code Accumulator::state}/{@code merge_batch}, Trino's
 * {@code @CombineFunction}), so the planner splits every aggregate the same way without a list of
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
