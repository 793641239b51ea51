package dev.lake.sql;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import dev.lake.exec.expr.Expr;
import dev.lake.exec.expr.Kernel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexDynamicParam;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;

/**
 * The rows of an {@code INSERT ... VALUES} whose parameters stand inside expressions ({@code
 * VALUES (? + 1, upper(?), CAST(? AS DATE))}), evaluated vectorised over each bound batch: the
 * validated plan's VALUES rows become lists of expressions in which parameter {@code i} is column
 * {@code i} of the bound batch (converted to the type the validator gave the parameter), compiled
 * once to kernels. Each bound row gives one table row per VALUES row, as with bare parameters.
 */
final class ValuesExpressions {
  private final List<List<Expr>> rows;
  private final List<List<Field>> fields;

  private ValuesExpressions(List<List<Expr>> rows, List<List<Field>> fields) {
    this.rows = rows;
    this.fields = fields;
  }

  /**
   * The expressions of {@code rel}, the planned source of the INSERT (projections and unions over
   * VALUES), over parameters of {@code types}.
   *
   * @throws SqlException UNSUPPORTED when the source is not such a VALUES (a query with
   *     parameters), or an expression is of a type the engine cannot compute
   */
  static ValuesExpressions of(RelNode rel, List<SqlType> types) {
    RexBuilder rexBuilder = rel.getCluster().getRexBuilder();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) {
      names.add("parameter_" + (i + 1));
    }
    RexShuttle parametersAsColumns = new RexShuttle() {
      @Override
      public RexNode visitDynamicParam(RexDynamicParam param) {
        RelDataType type = rexBuilder.getTypeFactory().createTypeWithNullability(param.getType(), true);
        return new RexInputRef(param.getIndex(), type);
      }
    };
    RexToExpr translator = new RexToExpr(rexBuilder, types, names);
    List<List<Expr>> exprRows = new ArrayList<>();
    List<List<Field>> fields = new ArrayList<>();
    for (List<RexNode> row : rows(rel)) {
      List<Expr> exprs = new ArrayList<>();
      List<Field> rowFields = new ArrayList<>();
      for (RexNode value : row) {
        Expr expr = translator.convert(value.accept(parametersAsColumns));
        exprs.add(expr);
        rowFields.add(Field.nullable("c" + rowFields.size(), expr.type().arrowType()));
      }
      exprRows.add(exprs);
      fields.add(rowFields);
    }
    return new ValuesExpressions(exprRows, fields);
  }

  // Each row of the VALUES as expressions over nothing but literals and parameters.
  private static List<List<RexNode>> rows(RelNode rel) {
    return switch (rel) {
      case Values values -> values.getTuples().stream().map(t -> List.<RexNode>copyOf(t)).toList();
      case Project project -> rows(project.getInput()).stream().map(input -> {
        RexShuttle inline = new RexShuttle() {
          @Override
          public RexNode visitInputRef(RexInputRef ref) {
            return input.get(ref.getIndex());
          }
        };
        return project.getProjects().stream().map(e -> e.accept(inline)).toList();
      }).toList();
      case Union union when union.all ->
          union.getInputs().stream().flatMap(input -> rows(input).stream()).toList();
      default -> throw new SqlException(SqlException.Kind.UNSUPPORTED, "parameters in an"
          + " INSERT are supported in a VALUES list, not in a query (INSERT ... SELECT ?)");
    };
  }

  /** The parameter schema these expressions read: the validated type of each parameter. */
  static Schema parameterSchema(List<SqlType> types) {
    return Parameters.schema(types);
  }

  /**
   * Evaluates every VALUES row over {@code parameters} (of {@link #parameterSchema}) and hands
   * each result, one column per value, to {@code sink}, which must take its buffers or copy them
   * before it returns.
   *
   * @throws SqlException EXECUTION for a data error (a failed cast, division by zero)
   */
  void evaluate(VectorSchemaRoot parameters, BufferAllocator allocator, Consumer<VectorSchemaRoot> sink) {
    Batch batch = Batch.dense(parameters);
    for (int r = 0; r < rows.size(); r++) {
      List<FieldVector> vectors = new ArrayList<>();
      try {
        // Compiled per evaluation: kernels run on one thread at a time, and executions may overlap.
        List<Kernel> kernels = Kernel.compileShared(rows.get(r));
        for (int i = 0; i < kernels.size(); i++) {
          FieldVector vector = fields.get(r).get(i).createVector(allocator);
          vectors.add(vector);
          Col col = kernels.get(i).eval(batch);
          Vectors.write(col, vector);
        }
        sink.accept(new VectorSchemaRoot(fields.get(r), vectors, batch.count()));
      } catch (RuntimeException e) {
        throw Execution.failure(allocator, e);
      } finally {
        vectors.forEach(FieldVector::close);
      }
    }
  }
}
