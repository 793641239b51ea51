package dev.lake.sql;

import dev.lake.exec.SqlType;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeSystem;
import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.rel.type.StructKind;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;

/** Type mapping between lake's {@link SqlType} and Calcite, and the type rules lake plans with. */
final class RelTypes {
  private RelTypes() {}

  /**
   * Calcite's defaults, except: {@code sum} of integers is BIGINT and of decimals DECIMAL(38, s);
   * {@code avg} of integers and floats is DOUBLE and of decimals DECIMAL(38, max(s, 6)) (what
   * the engine's accumulators compute); timestamps carry microseconds; CASE/UNION of strings of
   * different lengths is VARCHAR (no blank padding).
   */
  static final RelDataTypeSystem TYPE_SYSTEM = new RelDataTypeSystemImpl() {
    @Override
    public int getMaxPrecision(SqlTypeName typeName) {
      return typeName == SqlTypeName.TIMESTAMP ? 6 : super.getMaxPrecision(typeName);
    }

    @Override
    public RelDataType deriveSumType(RelDataTypeFactory f, RelDataType arg) {
      RelDataType t = switch (arg.getSqlTypeName()) {
        case TINYINT, SMALLINT, INTEGER, BIGINT -> f.createSqlType(SqlTypeName.BIGINT);
        case DECIMAL -> f.createSqlType(SqlTypeName.DECIMAL, SqlType.MAX_DECIMAL_PRECISION, arg.getScale());
        case REAL, FLOAT, DOUBLE -> f.createSqlType(SqlTypeName.DOUBLE);
        default -> arg;
      };
      return f.createTypeWithNullability(t, arg.isNullable());
    }

    @Override
    public RelDataType deriveAvgAggType(RelDataTypeFactory f, RelDataType arg) {
      RelDataType t = arg.getSqlTypeName() == SqlTypeName.DECIMAL
          ? f.createSqlType(SqlTypeName.DECIMAL, SqlType.MAX_DECIMAL_PRECISION, Math.max(arg.getScale(), 6))
          : SqlTypeUtil.isNumeric(arg) ? f.createSqlType(SqlTypeName.DOUBLE) : arg;
      return f.createTypeWithNullability(t, arg.isNullable());
    }

    @Override
    public boolean shouldConvertRaggedUnionTypesToVarying() {
      return true;
    }
  };

  /**
   * The Calcite type of a table column: the engine's scalar types, structs as ROW types (fields
   * in order) and list, large-list and fixed-size-list columns as ARRAY types, to any depth;
   * anything else is ANY (it can only be passed through). A struct column's ROW type lets
   * {@code video.uri} name its field without the table's name
   * ({@link StructKind#PEEK_FIELDS_NO_EXPAND}; {@code *} still returns the struct as one column).
   */
  static RelDataType column(RelDataTypeFactory f, Field field) {
    return fromArrow(f, field, StructKind.PEEK_FIELDS_NO_EXPAND);
  }

  private static RelDataType fromArrow(RelDataTypeFactory f, Field field, StructKind kind) {
    RelDataType type = switch (field.getType()) {
      case ArrowType.Struct s -> f.createStructType(kind,
          field.getChildren().stream().map(c -> fromArrow(f, c, StructKind.FULLY_QUALIFIED)).toList(),
          field.getChildren().stream().map(Field::getName).toList());
      case ArrowType.List l -> element(f, field);
      case ArrowType.LargeList l -> element(f, field);
      case ArrowType.FixedSizeList l -> element(f, field);
      default -> SqlType.fromArrow(field.getType(), field.isNullable())
          .map(t -> toCalcite(f, t))
          .orElseGet(() -> f.createSqlType(SqlTypeName.ANY));
    };
    return f.createTypeWithNullability(type, field.isNullable() || type.getSqlTypeName() == SqlTypeName.ANY);
  }

  private static RelDataType element(RelDataTypeFactory f, Field list) {
    return f.createArrayType(fromArrow(f, list.getChildren().getFirst(), StructKind.FULLY_QUALIFIED), -1);
  }

  static RelDataType toCalcite(RelDataTypeFactory f, SqlType t) {
    RelDataType type = switch (t.kind()) {
      case NULL -> f.createSqlType(SqlTypeName.NULL);
      case BOOL -> f.createSqlType(SqlTypeName.BOOLEAN);
      case INT8 -> f.createSqlType(SqlTypeName.TINYINT);
      case INT16 -> f.createSqlType(SqlTypeName.SMALLINT);
      case INT32 -> f.createSqlType(SqlTypeName.INTEGER);
      case INT64 -> f.createSqlType(SqlTypeName.BIGINT);
      case FLOAT32 -> f.createSqlType(SqlTypeName.REAL);
      case FLOAT64 -> f.createSqlType(SqlTypeName.DOUBLE);
      case DECIMAL -> f.createSqlType(SqlTypeName.DECIMAL, t.precision(), t.scale());
      case UTF8 -> f.createSqlType(SqlTypeName.VARCHAR);
      case DATE -> f.createSqlType(SqlTypeName.DATE);
      case TIMESTAMP -> f.createSqlType(SqlTypeName.TIMESTAMP, 6);
      case LIST -> f.createArrayType(toCalcite(f, t.element()), -1);
    };
    return f.createTypeWithNullability(type, t.nullable());
  }

  /**
   * The engine type computing values of Calcite type {@code t}.
   *
   * @throws SqlException UNSUPPORTED for types the engine cannot compute with
   */
  static SqlType toLake(RelDataType t) {
    boolean nullable = t.isNullable();
    return switch (t.getSqlTypeName()) {
      case NULL -> SqlType.of(SqlType.Kind.NULL, true);
      case BOOLEAN -> SqlType.of(SqlType.Kind.BOOL, nullable);
      case TINYINT -> SqlType.of(SqlType.Kind.INT8, nullable);
      case SMALLINT -> SqlType.of(SqlType.Kind.INT16, nullable);
      case INTEGER -> SqlType.of(SqlType.Kind.INT32, nullable);
      case BIGINT -> SqlType.of(SqlType.Kind.INT64, nullable);
      case REAL -> SqlType.of(SqlType.Kind.FLOAT32, nullable);
      case FLOAT, DOUBLE -> SqlType.of(SqlType.Kind.FLOAT64, nullable);
      case DECIMAL -> SqlType.decimal(Math.min(Math.max(t.getPrecision(), 1), SqlType.MAX_DECIMAL_PRECISION),
          Math.max(0, t.getScale()), nullable);
      case CHAR, VARCHAR -> SqlType.of(SqlType.Kind.UTF8, nullable);
      case DATE -> SqlType.of(SqlType.Kind.DATE, nullable);
      case TIMESTAMP, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> SqlType.of(SqlType.Kind.TIMESTAMP, nullable);
      case ARRAY -> SqlType.list(toLake(java.util.Objects.requireNonNull(t.getComponentType())), nullable);
      default -> throw new SqlException(SqlException.Kind.UNSUPPORTED,
          "values of type " + t.getFullTypeString() + " are not supported yet in this position");
    };
  }
}
