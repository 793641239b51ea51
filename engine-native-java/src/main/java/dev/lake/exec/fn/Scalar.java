package dev.lake.exec.fn;

import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Kernel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A scalar function put together from its parts, so defining one is a single expression:
 *
 * <pre>{@code
 * static final ScalarFunction REVERSE = Scalar.named("reverse")
 *     .takes(Param.STRING)
 *     .returns(SqlType.Kind.UTF8)
 *     .rows(a -> reverse((String) a[0]));
 * }</pre>
 *
 * Unless {@link Builder#nullable} says otherwise a function is strict: NULL in any argument makes
 * the result NULL without calling it, and the result may be NULL only when an argument may.
 */
public final class Scalar implements ScalarFunction {

  /** The result type of a call, from its (converted) arguments. */
  @FunctionalInterface
  public interface ResultRule {
    SqlType apply(Binding args);
  }

  /** Builds the kernel of one call. */
  @FunctionalInterface
  public interface KernelFactory {
    Kernel create(List<Kernel> args, Binding binding, SqlType result);
  }

  private final String name;
  private final List<String> aliases;
  private final List<Signature> signatures;
  private final ResultRule result;
  private final KernelFactory kernel;

  private Scalar(Builder b, KernelFactory kernel) {
    this.name = b.name;
    this.aliases = List.copyOf(b.aliases);
    this.signatures = List.copyOf(b.signatures);
    this.result = Objects.requireNonNull(b.result, "result rule of " + b.name);
    this.kernel = kernel;
    if (signatures.isEmpty()) {
      throw new IllegalStateException(name + " has no signature");
    }
  }

  public static Builder named(String name, String... aliases) {
    return new Builder(name, aliases);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<String> aliases() {
    return aliases;
  }

  @Override
  public List<Signature> signatures() {
    return signatures;
  }

  @Override
  public SqlType resultType(Binding args) {
    return result.apply(args);
  }

  @Override
  public Kernel kernel(List<Kernel> args, Binding binding, SqlType resultType) {
    return kernel.create(args, binding, resultType);
  }

  @Override
  public String toString() {
    return name;
  }

  public static final class Builder {
    private final String name;
    private final List<String> aliases = new ArrayList<>();
    private final List<Signature> signatures = new ArrayList<>();
    private ResultRule result;
    private boolean strict = true;

    private Builder(String name, String... aliases) {
      this.name = name.toLowerCase(Locale.ROOT);
      for (String alias : aliases) {
        this.aliases.add(alias.toLowerCase(Locale.ROOT));
      }
    }

    /** Adds the form {@code name(params)}. */
    public Builder takes(Param... params) {
      signatures.add(Signature.of(params));
      return this;
    }

    /** Adds the form {@code name(params, last...)}: the last parameter repeats. */
    public Builder takesVariadic(Param... params) {
      signatures.add(Signature.variadic(params));
      return this;
    }

    /** The result is of kind {@code kind} (not a decimal). */
    public Builder returns(SqlType.Kind kind) {
      return returns(args -> SqlType.of(kind, true));
    }

    /** The result is of the type {@code rule} gives; a strict function's nullability is set for it. */
    public Builder returns(ResultRule rule) {
      this.result = rule;
      return this;
    }

    /**
     * The function decides NULL handling itself: its row function sees NULL arguments (as null)
     * and {@code rule} gives the result's nullability ({@code concat} skips NULLs, {@code
     * greatest} ignores them).
     */
    public Builder nullable(ResultRule rule) {
      this.strict = false;
      this.result = rule;
      return this;
    }

    /** The function computed one row at a time by {@code f}; null from {@code f} is NULL. */
    public Scalar rows(Rows.RowFunction f) {
      boolean isStrict = strict;
      return kernel((args, binding, type) -> new Rows.RowKernel(args, type, isStrict, f));
    }

    /** The function computed by kernels {@code factory} builds (typed loops). */
    public Scalar kernel(KernelFactory factory) {
      ResultRule rule = result;
      if (strict && rule != null) {
        result = args -> rule.apply(args).withNullable(args.anyNullable());
      }
      return new Scalar(this, factory);
    }
  }
}
