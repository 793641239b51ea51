package dev.lake.exec.fn;

import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * {@code approx_count_distinct(x)}: the number of distinct non-NULL values, estimated with
 * HyperLogLog over a 64-bit hash of each value. A group starts exact (it keeps its distinct
 * hashes, up to {@value #SPARSE_LIMIT}) and switches to {@value #REGISTERS} one-byte registers
 * ({@code p = 14}) beyond; the registers' relative standard error is {@code 1.04 / sqrt(2^14)},
 * about 0.81%. Merging two states takes the maximum of each register, so partial states combine
 * exactly as if one state had seen every row. Never NULL: 0 for a group without values.
 */
public final class ApproximateAggregates {
  private ApproximateAggregates() {}

  static final int PRECISION = 14;
  static final int REGISTERS = 1 << PRECISION;
  /** Distinct hashes a group keeps exactly before it switches to registers (8 KB of them). */
  static final int SPARSE_LIMIT = 1024;
  /** The relative standard error of the estimate once a group holds registers. */
  public static final double STANDARD_ERROR = 1.04 / Math.sqrt(REGISTERS);

  public static final AggregateFunction APPROX_COUNT_DISTINCT = AggregateDefinition.of("approx_count_distinct",
      List.of(), List.of(Signature.of(Param.SAME)), b -> SqlType.of(SqlType.Kind.INT64, false),
      AggregateFunction.Ordering.FORBIDDEN, spec -> new Sketches());

  public static final List<AggregateFunction> ALL = List.of(APPROX_COUNT_DISTINCT);

  /** fmix64 of MurmurHash3: every input bit affects every output bit. */
  static long mix(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }

  /** A 64-bit hash of a value as SQL equality sees it (-0.0 is 0.0; 1.50 is 1.5). */
  static long hash(Object v) {
    return switch (v) {
      case Long l -> mix(l ^ 0x9E3779B97F4A7C15L);
      case Double d -> mix(Double.doubleToLongBits(d == 0.0 ? 0.0 : d) * 31 + 7);
      case Boolean b -> mix(b ? 0x51 : 0x52);
      case BigDecimal d -> {
        BigDecimal n = (BigDecimal) DistinctInputs.normalise(d);
        yield mix(n.unscaledValue().hashCode() * 0x100000001b3L + n.scale());
      }
      case String s -> {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
          h = Long.rotateLeft((h ^ s.charAt(i)) * 0x9E3779B97F4A7C15L, 31);
        }
        yield mix(h ^ s.length());
      }
      default -> mix(v.hashCode());
    };
  }

  /** One group's sketch: exact hashes (an open-addressing set) until it has too many, then registers. */
  static final class Sketch {
    private long[] hashes = new long[16];
    private int size;
    private boolean hasZero;
    private byte[] registers;

    void add(long h) {
      if (registers != null) {
        int index = (int) (h >>> (64 - PRECISION));
        int rank = Long.numberOfLeadingZeros((h << PRECISION) | (1L << (PRECISION - 1))) + 1;
        if (rank > registers[index]) {
          registers[index] = (byte) rank;
        }
        return;
      }
      if (h == 0) {
        if (!hasZero) {
          hasZero = true;
          size++;
        }
      } else {
        insert(h);
      }
      if (size > SPARSE_LIMIT) {
        densify();
      }
    }

    private void insert(long h) {
      int mask = hashes.length - 1;
      int i = (int) h & mask;
      while (hashes[i] != 0) {
        if (hashes[i] == h) {
          return;
        }
        i = (i + 1) & mask;
      }
      hashes[i] = h;
      size++;
      if (size * 2 > hashes.length) {
        long[] old = hashes;
        hashes = new long[old.length * 2];
        size = hasZero ? 1 : 0;
        for (long o : old) {
          if (o != 0) {
            insert(o);
          }
        }
      }
    }

    private void densify() {
      long[] old = hashes;
      boolean zero = hasZero;
      registers = new byte[REGISTERS];
      hashes = null;
      for (long o : old) {
        if (o != 0) {
          add(o);
        }
      }
      if (zero) {
        add(0);
      }
    }

    void merge(Sketch other) {
      if (other.registers != null) {
        if (registers == null) {
          densify();
        }
        for (int i = 0; i < REGISTERS; i++) {
          if (other.registers[i] > registers[i]) {
            registers[i] = other.registers[i];
          }
        }
        return;
      }
      for (long o : other.hashes) {
        if (o != 0) {
          add(o);
        }
      }
      if (other.hasZero) {
        add(0);
      }
    }

    long estimate() {
      if (registers == null) {
        return size;
      }
      double sum = 0;
      int zeros = 0;
      for (byte r : registers) {
        sum += Math.scalb(1.0, -r);
        if (r == 0) {
          zeros++;
        }
      }
      double m = REGISTERS;
      double alpha = 0.7213 / (1 + 1.079 / m);
      double e = alpha * m * m / sum;
      if (e <= 2.5 * m && zeros > 0) {
        e = m * Math.log(m / zeros);
      }
      return Math.round(e);
    }

    long bytes() {
      return registers != null ? REGISTERS + 32 : 8L * hashes.length + 32;
    }
  }

  /** Per group, its sketch (none until the group has a value). */
  static final class Sketches extends GroupState {
    private final List<Sketch> sketches = new ArrayList<>();
    private long bytes;

    private Sketch at(int g) {
      Sketch s = sketches.get(g);
      if (s == null) {
        s = new Sketch();
        sketches.set(g, s);
        bytes += s.bytes();
      }
      return s;
    }

    private void ensure(int groupCount) {
      while (sketches.size() < groupCount) {
        sketches.add(null);
      }
    }

    @Override
    public void add(int[] groups, int count, Col[] inputs, int groupCount) {
      ensure(groupCount);
      Col c = inputs[0];
      for (int i = 0; i < count; i++) {
        Object v = c.get(i);
        if (v != null) {
          Sketch s = at(groups[i]);
          long before = s.bytes();
          s.add(hash(v));
          bytes += s.bytes() - before;
        }
      }
    }

    @Override
    public void merge(GroupState other, int[] into, int groupCount) {
      ensure(groupCount);
      Sketches o = (Sketches) other;
      for (int g = 0; g < into.length && g < o.sketches.size(); g++) {
        Sketch s = o.sketches.get(g);
        if (s != null && into[g] >= 0) {
          Sketch t = at(into[g]);
          long before = t.bytes();
          t.merge(s);
          bytes += t.bytes() - before;
        }
      }
    }

    @Override
    public void write(int groupCount, FieldVector out) {
      Col.Longs result = new Col.Longs(groupCount);
      for (int g = 0; g < groupCount; g++) {
        Sketch s = g < sketches.size() ? sketches.get(g) : null;
        result.values[g] = s == null ? 0 : s.estimate();
      }
      Vectors.write(result, out);
    }

    @Override
    public long heapBytes() {
      return bytes + 8L * sketches.size();
    }
  }
}
