package dev.lake.exec;

import java.math.BigDecimal;
import java.util.List;

/** Whole-column operations on {@link Col}s: concatenation, gathering, hashing and equality. */
public final class Cols {
  private Cols() {}

  /** One column holding the rows of {@code parts} in order; {@code type} for an empty list. */
  public static Col concat(List<Col> parts, SqlType type) {
    int n = 0;
    for (Col c : parts) {
      n += c.size;
    }
    Col out = Col.allocate(type, n);
    int at = 0;
    for (Col c : parts) {
      switch (out) {
        case Col.Longs o -> {
          Col.Longs s = (Col.Longs) c;
          System.arraycopy(s.values, 0, o.values, at, s.size);
          System.arraycopy(s.nulls, 0, o.nulls, at, s.size);
        }
        case Col.Doubles o -> {
          Col.Doubles s = (Col.Doubles) c;
          System.arraycopy(s.values, 0, o.values, at, s.size);
          System.arraycopy(s.nulls, 0, o.nulls, at, s.size);
        }
        case Col.Bools o -> {
          Col.Bools s = (Col.Bools) c;
          System.arraycopy(s.values, 0, o.values, at, s.size);
          System.arraycopy(s.nulls, 0, o.nulls, at, s.size);
        }
        case Col.Objects o -> System.arraycopy(((Col.Objects) c).values, 0, o.values, at, c.size);
      }
      at += c.size;
    }
    return out;
  }

  /** Rows {@code rows[0..n)} of {@code src}; a negative index yields NULL (outer joins). */
  public static Col gather(Col src, SqlType type, int[] rows, int n) {
    Col out = Col.allocate(type, n);
    switch (out) {
      case Col.Longs o -> {
        Col.Longs s = (Col.Longs) src;
        for (int i = 0; i < n; i++) {
          int r = rows[i];
          if (r < 0) {
            o.nulls[i] = true;
          } else {
            o.values[i] = s.values[r];
            o.nulls[i] = s.nulls[r];
          }
        }
      }
      case Col.Doubles o -> {
        Col.Doubles s = (Col.Doubles) src;
        for (int i = 0; i < n; i++) {
          int r = rows[i];
          if (r < 0) {
            o.nulls[i] = true;
          } else {
            o.values[i] = s.values[r];
            o.nulls[i] = s.nulls[r];
          }
        }
      }
      case Col.Bools o -> {
        Col.Bools s = (Col.Bools) src;
        for (int i = 0; i < n; i++) {
          int r = rows[i];
          if (r < 0) {
            o.nulls[i] = true;
          } else {
            o.values[i] = s.values[r];
            o.nulls[i] = s.nulls[r];
          }
        }
      }
      case Col.Objects o -> {
        Object[] s = ((Col.Objects) src).values;
        for (int i = 0; i < n; i++) {
          int r = rows[i];
          o.values[i] = r < 0 ? null : s[r];
        }
      }
    }
    return out;
  }

  /** Mixes the hash of every row of {@code col} into {@code hashes}; equal values hash equally. */
  public static void hashInto(Col col, int[] hashes, int n) {
    switch (col) {
      case Col.Longs c -> {
        for (int i = 0; i < n; i++) {
          hashes[i] = mix(hashes[i], c.nulls[i] ? 0 : Long.hashCode(c.values[i] * 0x9E3779B97F4A7C15L));
        }
      }
      case Col.Doubles c -> {
        for (int i = 0; i < n; i++) {
          double v = c.values[i] == 0.0 ? 0.0 : c.values[i];
          hashes[i] = mix(hashes[i], c.nulls[i] ? 0 : Long.hashCode(Double.doubleToLongBits(v) * 0x9E3779B97F4A7C15L));
        }
      }
      case Col.Bools c -> {
        for (int i = 0; i < n; i++) {
          hashes[i] = mix(hashes[i], c.nulls[i] ? 0 : c.values[i] ? 1 : 2);
        }
      }
      case Col.Objects c -> {
        for (int i = 0; i < n; i++) {
          Object v = c.values[i];
          int h = v == null ? 0 : v instanceof BigDecimal d
              ? (d.signum() == 0 ? 0 : d.stripTrailingZeros().hashCode()) : v.hashCode();
          hashes[i] = mix(hashes[i], h);
        }
      }
    }
  }

  private static int mix(int h, int v) {
    int x = h * 31 + v;
    return x ^ (x >>> 16);
  }

  /** Whether row {@code i} of {@code a} equals row {@code j} of {@code b}; NULL equals NULL. */
  public static boolean equal(Col a, int i, Col b, int j) {
    return switch (a) {
      case Col.Longs x -> {
        Col.Longs y = (Col.Longs) b;
        yield x.nulls[i] ? y.nulls[j] : !y.nulls[j] && x.values[i] == y.values[j];
      }
      case Col.Doubles x -> {
        Col.Doubles y = (Col.Doubles) b;
        yield x.nulls[i] ? y.nulls[j] : !y.nulls[j] && x.values[i] == y.values[j];
      }
      case Col.Bools x -> {
        Col.Bools y = (Col.Bools) b;
        yield x.nulls[i] ? y.nulls[j] : !y.nulls[j] && x.values[i] == y.values[j];
      }
      case Col.Objects x -> {
        Object u = x.values[i];
        Object v = ((Col.Objects) b).values[j];
        if (u == null || v == null) {
          yield u == v;
        }
        yield u instanceof BigDecimal d ? d.compareTo((BigDecimal) v) == 0 : u.equals(v);
      }
    };
  }
}
