package dev.lake.exec.expr;

import dev.lake.exec.Col;
import java.time.LocalDate;
import java.util.List;

/**
 * The fields of a date or timestamp ({@code EXTRACT(YEAR | MONTH | DAY FROM ...)}), one typed loop
 * each. Every other scalar function is defined in the {@link dev.lake.exec.fn.FunctionRegistry}.
 */
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
}
