package dev.lake.exec.expr;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.ExecutionException;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;

/** Scalar functions: date fields, substrings and case mapping, one typed loop each. */
final class FunctionKernels {
  private FunctionKernels() {}

  private static final long MICROS_PER_DAY = 86_400_000_000L;

  static Kernel of(Expr.Call call, List<Kernel> args) {
    return switch (call.op()) {
      case EXTRACT_YEAR, EXTRACT_MONTH, EXTRACT_DAY -> {
        boolean timestamp = call.args().get(0).type().kind() == dev.lake.exec.SqlType.Kind.TIMESTAMP;
        Expr.Op op = call.op();
        Kernel arg = args.get(0);
        yield batch -> extract(op, timestamp, (Col.Longs) arg.eval(batch));
      }
      case SUBSTRING -> batch -> substring(batch, args);
      case UPPER, LOWER -> {
        boolean upper = call.op() == Expr.Op.UPPER;
        Kernel arg = args.get(0);
        yield batch -> {
          Col.Objects in = (Col.Objects) arg.eval(batch);
          Col.Objects out = new Col.Objects(in.size);
          for (int i = 0; i < in.size; i++) {
            String s = (String) in.values[i];
            out.values[i] = s == null ? null
                : upper ? s.toUpperCase(Locale.ROOT) : s.toLowerCase(Locale.ROOT);
          }
          return out;
        };
      }
      case CHAR_LENGTH -> {
        Kernel arg = args.get(0);
        yield batch -> {
          Col.Objects in = (Col.Objects) arg.eval(batch);
          Col.Longs out = new Col.Longs(in.size);
          for (int i = 0; i < in.size; i++) {
            String s = (String) in.values[i];
            if (s == null) {
              out.nulls[i] = true;
            } else {
              out.values[i] = s.codePointCount(0, s.length());
            }
          }
          return out;
        };
      }
      default -> throw new IllegalStateException("not a function: " + call.op());
    };
  }

  private static Col extract(Expr.Op op, boolean timestamp, Col.Longs in) {
    Col.Longs out = new Col.Longs(in.size);
    System.arraycopy(in.nulls, 0, out.nulls, 0, in.size);
    for (int i = 0; i < in.size; i++) {
      if (in.nulls[i]) {
        continue;
      }
      long day = timestamp ? Math.floorDiv(in.values[i], MICROS_PER_DAY) : in.values[i];
      LocalDate date = LocalDate.ofEpochDay(day);
      out.values[i] = switch (op) {
        case EXTRACT_YEAR -> date.getYear();
        case EXTRACT_MONTH -> date.getMonthValue();
        default -> date.getDayOfMonth();
      };
    }
    return out;
  }

  /** SQL SUBSTRING: positions before 1 shorten the length, as the standard says. */
  private static Col substring(Batch batch, List<Kernel> args) {
    Col.Objects s = (Col.Objects) args.get(0).eval(batch);
    Col.Longs start = (Col.Longs) args.get(1).eval(batch);
    Col.Longs length = args.size() > 2 ? (Col.Longs) args.get(2).eval(batch) : null;
    Col.Objects out = new Col.Objects(s.size);
    for (int i = 0; i < s.size; i++) {
      String v = (String) s.values[i];
      if (v == null || start.nulls[i] || (length != null && length.nulls[i])) {
        continue;
      }
      long from = start.values[i];
      long to;
      if (length == null) {
        to = Long.MAX_VALUE;
      } else {
        if (length.values[i] < 0) {
          throw new ExecutionException("negative substring length " + length.values[i]);
        }
        to = from + length.values[i];
      }
      int cps = v.codePointCount(0, v.length());
      long a = Math.max(from, 1);
      long b = Math.min(to, (long) cps + 1);
      if (b <= a) {
        out.values[i] = "";
      } else {
        int begin = v.offsetByCodePoints(0, (int) (a - 1));
        int end = v.offsetByCodePoints(begin, (int) (b - a));
        out.values[i] = v.substring(begin, end);
      }
    }
    return out;
  }
}
