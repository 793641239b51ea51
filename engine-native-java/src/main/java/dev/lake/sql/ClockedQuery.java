package dev.lake.sql;

import dev.lake.exec.QueryControl;
import dev.lake.exec.fn.DateTimeFunctions;
import dev.lake.exec.fn.StatementClock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelVisitor;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexNode;

/**
 * A statement that reads the statement clock ({@code now()}, {@code current_timestamp}, {@code
 * current_date}): its physical plan is built again at every execution with that execution's time
 * as a constant, so all rows of one execution see one value, and a kept plan (the plan cache, a
 * client's prepared statement) sees a new one each time. Building a physical plan from the kept
 * logical one takes well under a millisecond beside planning.
 */
final class ClockedQuery implements PreparedQuery {
  private final Supplier<PreparedQuery> translate;
  private final PreparedQuery described;

  /** @param translate builds the physical plan; it runs with a statement time bound */
  ClockedQuery(Supplier<PreparedQuery> translate) {
    this.translate = translate;
    this.described = at(StatementClock.systemMicros());
  }

  /** Whether {@code rel} calls a clock function anywhere. */
  static boolean readsClock(RelNode rel) {
    boolean[] found = {false};
    RexShuttle finder = new RexShuttle() {
      @Override
      public RexNode visitCall(RexCall call) {
        if (call.getOperator() instanceof FunctionOperators.Operator op
            && DateTimeFunctions.CLOCK.contains(op.function)) {
          found[0] = true;
          return call;
        }
        return super.visitCall(call);
      }
    };
    new RelVisitor() {
      @Override
      public void visit(RelNode node, int ordinal, RelNode parent) {
        node.accept(finder);
        super.visit(node, ordinal, parent);
      }
    }.go(rel);
    return found[0];
  }

  private PreparedQuery at(long micros) {
    return StatementClock.during(micros, translate);
  }

  @Override
  public Schema schema() {
    return described.schema();
  }

  @Override
  public List<Optional<ColumnOrigin>> origins() {
    return described.origins();
  }

  @Override
  public Schema parameterSchema() {
    return described.parameterSchema();
  }

  @Override
  public Map<TableName, dev.lake.engine.Version> pins() {
    return described.pins();
  }

  /** Builds the plan with the time now, then runs it as {@link RelPreparedQuery#execute} does. */
  @Override
  public ArrowReader execute(BufferAllocator allocator, QueryControl control) {
    return at(StatementClock.systemMicros()).execute(allocator, control);
  }

  @Override
  public List<String> explain() {
    return described.explain();
  }
}
