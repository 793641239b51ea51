package dev.lake.exec.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.exec.HeapBudget;
import dev.lake.exec.SqlType;
import dev.lake.exec.expr.Expr;
import dev.lake.exec.fn.AggregateSpec;
import dev.lake.exec.fn.Binding;
import dev.lake.exec.fn.OrderedAggregates;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** The heap a registry aggregate's state holds counts against the query's allocator. */
class RegistryAggregateBudgetTest {
  private static final SqlType FLOAT64 = SqlType.of(SqlType.Kind.FLOAT64, true);
  private static final int ROWS = 20_000;

  private static List<List<Object>> rows() {
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      rows.add(List.of((double) i));
    }
    return rows;
  }

  private static Expr.Agg median() {
    Binding b = Binding.of(List.of(FLOAT64));
    AggregateSpec spec = new AggregateSpec(OrderedAggregates.MEDIAN, b, FLOAT64, false, List.of());
    Expr x = new Expr.Column(0, "x", FLOAT64);
    return new Expr.Agg(Expr.AggFn.REGISTERED, false, x, FLOAT64, null, new Expr.Registered(spec, List.of(x)));
  }

  private static void drain(Operator op) {
    while (op.next() != null) {
      // The one result row.
    }
  }

  @Test
  void medianOverItsBudgetFailsNamingTheAggregateAndLeaksNothing() {
    Schema in = new Schema(List.of(FLOAT64.field("x")));
    Schema out = new Schema(List.of(FLOAT64.field("m")));
    // 20,000 doubles are 160 KB of Arrow input but about 1 MB of kept rows on the heap.
    try (RootAllocator root = new RootAllocator();
        BufferAllocator query = root.newChildAllocator("query", 0, 512 * 1024)) {
      HeapBudget.OverBudgetException e = assertThrows(HeapBudget.OverBudgetException.class, () -> {
        try (Operator op = new HashAggregateOperator(new ValuesOperator(in, List.of(FLOAT64), rows(), query),
            out, List.of(), List.of(median()), query)) {
          drain(op);
        }
      });
      assertTrue(e.getMessage().contains("hash aggregate needs"), e.getMessage());
      assertEquals(0, query.getAllocatedMemory());
    }
    try (RootAllocator root = new RootAllocator();
        BufferAllocator query = root.newChildAllocator("query", 0, 8L << 20);
        Operator op = new HashAggregateOperator(new ValuesOperator(in, List.of(FLOAT64), rows(), query),
            out, List.of(), List.of(median()), query)) {
      var batch = op.next();
      assertEquals((ROWS - 1) / 2.0, ((org.apache.arrow.vector.Float8Vector) batch.root().getVector(0)).get(batch.row(0)));
    }
  }
}
