package dev.lake.exec.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.engine.ScanUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Partial aggregation groups adjacent scan units into at most a fixed number of morsels. */
class ParallelAggregateMorselsTest {

  private record Unit(int index) implements ScanUnit {
    @Override
    public long rowCount() {
      return 1;
    }

    @Override
    public String describe() {
      return "unit " + index;
    }
  }

  @Test
  void unitsBecomeAtMostSixteenMorselsOfAdjacentUnitsInOrder() {
    for (int count : new int[] {0, 1, 15, 16, 17, 49, 100, 1000}) {
      List<ScanUnit> units = IntStream.range(0, count).<ScanUnit>mapToObj(Unit::new).toList();
      List<List<ScanUnit>> morsels = ParallelAggregateOperator.morselsOf(units);
      assertTrue(morsels.size() <= ParallelAggregateOperator.MAX_PARTIALS, count + " units: " + morsels.size());
      assertEquals(Math.min(count, ParallelAggregateOperator.MAX_PARTIALS) > 0, !morsels.isEmpty(), count + " units");
      List<ScanUnit> flattened = new ArrayList<>();
      morsels.forEach(m -> {
        assertTrue(!m.isEmpty(), "no empty morsel");
        flattened.addAll(m);
      });
      assertEquals(units, flattened, "every unit once, in order: " + count);
      if (count <= ParallelAggregateOperator.MAX_PARTIALS) {
        assertEquals(count, morsels.size(), "a unit per morsel while there are few");
      }
    }
  }
}
