package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/** Constants, three-valued logic, IS NULL, IN, LIKE and CASE. */
final class LogicKernels {
  private LogicKernels() {}

  static final class Constant implements Kernel {
    private final Expr.Literal literal;

    Constant(Expr.Literal literal) {
      this.literal = literal;
    }

    /** The constant's value, or null for NULL. */
    Object value() {
      return literal.value();
    }

    @Override
    public Col eval(Batch batch) {
      int n = batch.count();
      Object v = literal.value();
      Col col = Col.allocate(literal.type(), n);
      switch (col) {
        case Col.Longs c -> {
          if (v == null) Arrays.fill(c.nulls, true); else Arrays.fill(c.values, (Long) v);
        }
        case Col.Doubles c -> {
          if (v == null) Arrays.fill(c.nulls, true); else Arrays.fill(c.values, (Double) v);
        }
        case Col.Bools c -> {
          if (v == null) Arrays.fill(c.nulls, true); else Arrays.fill(c.values, (Boolean) v);
        }
        case Col.Objects c -> Arrays.fill(c.values, v);
      }
      return v == null ? col : col.markNoNulls();
    }
  }

  /** Kleene AND/OR: FALSE AND NULL is FALSE, TRUE OR NULL is TRUE. */
  static final class AndOr implements Kernel {
    private final boolean and;
    private final List<Kernel> terms;

    AndOr(boolean and, List<Kernel> terms) {
      this.and = and;
      this.terms = terms;
    }

    @Override
    public Col eval(Batch batch) {
      Col.Bools first = (Col.Bools) terms.get(0).eval(batch);
      Col.Bools acc = new Col.Bools(first.size);
      System.arraycopy(first.values, 0, acc.values, 0, first.size);
      System.arraycopy(first.nulls, 0, acc.nulls, 0, first.size);
      boolean noNulls = first.noNulls();
      for (int t = 1; t < terms.size(); t++) {
        Col.Bools next = (Col.Bools) terms.get(t).eval(batch);
        noNulls &= next.noNulls();
        for (int i = 0; i < acc.size; i++) {
          boolean an = acc.nulls[i];
          boolean bn = next.nulls[i];
          boolean a = acc.values[i];
          boolean b = next.values[i];
          if (and) {
            boolean definitelyFalse = (!an && !a) || (!bn && !b);
            acc.nulls[i] = !definitelyFalse && (an || bn);
            acc.values[i] = !definitelyFalse && !acc.nulls[i];
          } else {
            boolean definitelyTrue = (!an && a) || (!bn && b);
            acc.nulls[i] = !definitelyTrue && (an || bn);
            acc.values[i] = definitelyTrue;
          }
        }
      }
      return noNulls ? acc.markNoNulls() : acc;
    }
  }

  static final class Not implements Kernel {
    private final Kernel arg;

    Not(Kernel arg) {
      this.arg = arg;
    }

    @Override
    public Col eval(Batch batch) {
      Col.Bools c = (Col.Bools) arg.eval(batch);
      for (int i = 0; i < c.size; i++) {
        c.values[i] = !c.values[i];
      }
      return c;
    }
  }

  static final class IsNull implements Kernel {
    private final Kernel arg;
    private final boolean negated;

    IsNull(Kernel arg, boolean negated) {
      this.arg = arg;
      this.negated = negated;
    }

    @Override
    public Col eval(Batch batch) {
      Col c = arg.eval(batch);
      Col.Bools out = new Col.Bools(c.size);
      for (int i = 0; i < c.size; i++) {
        out.values[i] = c.isNull(i) != negated;
      }
      return out;
    }
  }

  /** x IN (list): TRUE if found; else NULL if x is NULL or the list holds a NULL; else FALSE. */
  static final class In implements Kernel {
    private final Kernel arg;
    private final Set<Object> set = new HashSet<>();
    private final boolean listHasNull;
    private final boolean negated;

    In(Kernel arg, List<Expr.Literal> values, boolean negated) {
      this.arg = arg;
      this.negated = negated;
      boolean hasNull = false;
      for (Expr.Literal l : values) {
        if (l.value() == null) {
          hasNull = true;
        } else {
          set.add(normalise(l.value()));
        }
      }
      this.listHasNull = hasNull;
    }

    /** BigDecimal equality depends on scale; compare decimals by value. */
    private static Object normalise(Object v) {
      return v instanceof java.math.BigDecimal d ? d.stripTrailingZeros() : v;
    }

    @Override
    public Col eval(Batch batch) {
      Col c = arg.eval(batch);
      Col.Bools out = new Col.Bools(c.size);
      for (int i = 0; i < c.size; i++) {
        Object v = c.get(i);
        if (v != null && set.contains(normalise(v))) {
          out.values[i] = !negated;
        } else if (v == null || listHasNull) {
          out.nulls[i] = true;
        } else {
          out.values[i] = negated;
        }
      }
      return out;
    }
  }

  /**
   * {@code x [NOT] IN (c1, c2, ...)} for an integer-backed {@code x} and non-null constants, on
   * primitives: a short list is compared whole without branches, a long one searched sorted.
   */
  static final class LongIn implements Kernel {
    private static final int SCANNED = 16;
    private final Kernel arg;
    private final long[] constants;
    private final boolean negated;

    LongIn(Kernel arg, long[] constants, boolean negated) {
      this.arg = arg;
      this.constants = Arrays.stream(constants).sorted().distinct().toArray();
      this.negated = negated;
    }

    @Override
    public Col eval(Batch batch) {
      Col.Longs c = (Col.Longs) arg.eval(batch);
      Col.Bools out = new Col.Bools(c.size);
      long[] values = c.values;
      long[] k = constants;
      for (int i = 0; i < c.size; i++) {
        long v = values[i];
        boolean hit = false;
        if (k.length <= SCANNED) {
          for (long constant : k) {
            hit |= v == constant;
          }
        } else {
          hit = Arrays.binarySearch(k, v) >= 0;
        }
        out.values[i] = hit != negated;
      }
      if (c.noNulls()) {
        return out.markNoNulls();
      }
      System.arraycopy(c.nulls, 0, out.nulls, 0, c.size);
      return out;
    }
  }

  static final class Like implements Kernel {
    private final Kernel arg;
    private final Pattern pattern;
    private final boolean negated;

    Like(Kernel arg, String pattern, Character escape, boolean negated) {
      this.arg = arg;
      this.pattern = Pattern.compile(toRegex(pattern, escape), Pattern.DOTALL);
      this.negated = negated;
    }

    static String toRegex(String like, Character escape) {
      StringBuilder regex = new StringBuilder();
      for (int i = 0; i < like.length(); i++) {
        char ch = like.charAt(i);
        if (escape != null && ch == escape && i + 1 < like.length()) {
          regex.append(Pattern.quote(String.valueOf(like.charAt(++i))));
        } else if (ch == '%') {
          regex.append(".*");
        } else if (ch == '_') {
          regex.append('.');
        } else {
          regex.append(Pattern.quote(String.valueOf(ch)));
        }
      }
      return regex.toString();
    }

    @Override
    public Col eval(Batch batch) {
      Col.Objects c = (Col.Objects) arg.eval(batch);
      Col.Bools out = new Col.Bools(c.size);
      for (int i = 0; i < c.size; i++) {
        if (c.values[i] == null) {
          out.nulls[i] = true;
        } else {
          out.values[i] = pattern.matcher((String) c.values[i]).matches() != negated;
        }
      }
      return out;
    }
  }

  /**
   * Evaluates each THEN only on the rows its WHEN selects, so {@code CASE WHEN x <> 0 THEN 1 / x
   * END} never divides by zero.
   */
  static final class CaseWhen implements Kernel {
    private final List<Kernel> whens;
    private final List<Kernel> thens;
    private final Kernel otherwise;
    private final SqlType type;

    CaseWhen(List<Kernel> whens, List<Kernel> thens, Kernel otherwise, SqlType type) {
      this.whens = whens;
      this.thens = thens;
      this.otherwise = otherwise;
      this.type = type;
    }

    @Override
    public Col eval(Batch batch) {
      int n = batch.count();
      Col out = Col.allocate(type, n);
      // positions[i]: index into the output of the i-th row still undecided
      int[] positions = new int[n];
      for (int i = 0; i < n; i++) {
        positions[i] = i;
      }
      int remaining = n;
      Batch current = batch;
      for (int w = 0; w <= whens.size() && remaining > 0; w++) {
        if (w == whens.size()) {
          scatter(otherwise.eval(current), out, positions, remaining);
          break;
        }
        Col.Bools cond = (Col.Bools) whens.get(w).eval(current);
        int[] hitRows = new int[remaining];
        int[] hitPos = new int[remaining];
        int[] missRows = new int[remaining];
        int[] missPos = new int[remaining];
        int hits = 0;
        int misses = 0;
        for (int i = 0; i < remaining; i++) {
          if (cond.isTrue(i)) {
            hitRows[hits] = current.row(i);
            hitPos[hits++] = positions[i];
          } else {
            missRows[misses] = current.row(i);
            missPos[misses++] = positions[i];
          }
        }
        if (hits > 0) {
          Col value = thens.get(w).eval(new Batch(batch.root(), hitRows, hits));
          scatter(value, out, hitPos, hits);
        }
        current = new Batch(batch.root(), missRows, misses);
        positions = missPos;
        remaining = misses;
      }
      return out;
    }

    private static void scatter(Col from, Col to, int[] positions, int count) {
      switch (to) {
        case Col.Longs t -> {
          Col.Longs f = (Col.Longs) from;
          for (int i = 0; i < count; i++) {
            t.values[positions[i]] = f.values[i];
            t.nulls[positions[i]] = f.nulls[i];
          }
        }
        case Col.Doubles t -> {
          Col.Doubles f = (Col.Doubles) from;
          for (int i = 0; i < count; i++) {
            t.values[positions[i]] = f.values[i];
            t.nulls[positions[i]] = f.nulls[i];
          }
        }
        case Col.Bools t -> {
          Col.Bools f = (Col.Bools) from;
          for (int i = 0; i < count; i++) {
            t.values[positions[i]] = f.values[i];
            t.nulls[positions[i]] = f.nulls[i];
          }
        }
        case Col.Objects t -> {
          Col.Objects f = (Col.Objects) from;
          for (int i = 0; i < count; i++) {
            t.values[positions[i]] = f.values[i];
          }
        }
      }
    }
  }
}
