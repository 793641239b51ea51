package dev.lake.sql;

import dev.lake.engine.DataLocationCodec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCollectionTypeNameSpec;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlRowTypeNameSpec;
import org.apache.calcite.sql.SqlTypeNameSpec;
import org.apache.calcite.sql.SqlUserDefinedTypeNameSpec;
import org.apache.calcite.sql.ddl.SqlColumnDeclaration;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * The Arrow schema of a {@code CREATE TABLE} column list. Scalar types follow PostgreSQL's names:
 *
 * <table>
 *   <tr><td>BOOLEAN, BOOL</td><td>bool</td></tr>
 *   <tr><td>TINYINT / SMALLINT, INT2 / INTEGER, INT, INT4 / BIGINT, INT8</td><td>int8 / int16 / int32 / int64</td></tr>
 *   <tr><td>REAL, FLOAT4</td><td>float32</td></tr>
 *   <tr><td>DOUBLE [PRECISION], FLOAT, FLOAT8</td><td>float64</td></tr>
 *   <tr><td>DECIMAL(p, s), NUMERIC(p, s) (DECIMAL alone: (38, 0))</td><td>decimal128(p, s)</td></tr>
 *   <tr><td>VARCHAR[(n)], CHAR[(n)], TEXT, STRING, CLOB</td><td>utf8 (the length is not enforced)</td></tr>
 *   <tr><td>VARBINARY, BINARY, BYTEA, BLOB</td><td>binary</td></tr>
 *   <tr><td>DATE</td><td>date32</td></tr>
 *   <tr><td>TIMESTAMP [WITH [LOCAL] TIME ZONE]</td><td>timestamp(µs, UTC)</td></tr>
 *   <tr><td>FILE</td><td>a managed object's {@link dev.lake.engine.DataLocation}: the struct of
 *       {@link DataLocationCodec}</td></tr>
 * </table>
 *
 * Nested: {@code ROW(a T, ...)} is a struct; {@code T[]} or {@code T ARRAY} a list;
 * {@code T[n]} a fixed-size list of n. A column is nullable unless {@code NOT NULL}; elements
 * and fields are nullable unless declared {@code NOT NULL} inside the {@code ROW}.
 *
 * <p>{@code PRIMARY KEY} and {@code UNIQUE} (a column's or the table's) are declarations only:
 * lake tables are append-only and no key is enforced; a primary key's columns are NOT NULL.
 */
final class DdlTypes {
  private DdlTypes() {}

  /** Child name of list elements, as pyarrow and Arrow's C++ library write it. */
  static final String ELEMENT = "item";

  /**
   * @param arraySizes every collection type of the column list in text order, with its fixed
   *     size or -1 ({@link DdlParsing.CreateTableText#arraySizes})
   * @param primaryKey the columns of a table-level PRIMARY KEY, made NOT NULL
   * @throws SqlException INVALID for duplicate columns or constraints; UNSUPPORTED for a type lake
   *     cannot store, naming the column
   */
  static Schema schema(SqlNodeList columns, List<Integer> arraySizes, List<String> primaryKey) {
    Iterator<Integer> sizes = arraySizes.iterator();
    List<Field> fields = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (SqlNode node : columns) {
      if (!(node instanceof SqlColumnDeclaration column)) {
        throw new SqlException(SqlException.Kind.UNSUPPORTED, "table constraints other than PRIMARY KEY"
            + " and UNIQUE are not supported: " + node, line(node), col(node), null);
      }
      String name = column.name.getSimple();
      if (!names.add(name)) {
        throw new SqlException(SqlException.Kind.INVALID, "column '" + name + "' is declared twice",
            line(node), col(node), null);
      }
      if (column.expression != null) {
        throw new SqlException(SqlException.Kind.UNSUPPORTED, "column '" + name + "': DEFAULT and"
            + " generated columns are not supported", line(node), col(node), null);
      }
      fields.add(field(name, column.dataType, sizes, true));
    }
    // Declarations only: lake tables are append-only and enforce no key; a primary key's
    // columns are NOT NULL, as in PostgreSQL.
    for (String name : primaryKey) {
      int at = -1;
      for (int i = 0; i < fields.size() && at < 0; i++) {
        at = fields.get(i).getName().equals(name) ? i : -1;
      }
      if (at < 0) {
        throw new SqlException(SqlException.Kind.INVALID, "PRIMARY KEY column '" + name + "' is not a column"
            + " of the table", line(columns), col(columns), null);
      }
      Field f = fields.get(at);
      fields.set(at, new Field(f.getName(), new FieldType(false, f.getType(), f.getDictionary(),
          f.getMetadata()), f.getChildren()));
    }
    return new Schema(fields);
  }

  private static Field field(String name, SqlDataTypeSpec spec, Iterator<Integer> sizes,
      boolean top) {
    boolean nullable = !Boolean.FALSE.equals(spec.getNullable());
    SqlTypeNameSpec type = spec.getTypeNameSpec();
    if (type instanceof SqlCollectionTypeNameSpec collection) {
      Field element = field(ELEMENT, new SqlDataTypeSpec(collection.getElementTypeName(),
          spec.getParserPosition()), sizes, false);
      int size = sizes.hasNext() ? sizes.next() : -1;
      if (!"ARRAY".equalsIgnoreCase(collection.getTypeName().getSimple())) {
        throw unsupported(name, "MULTISET", spec);
      }
      ArrowType list = size > 0 ? new ArrowType.FixedSizeList(size) : ArrowType.List.INSTANCE;
      return new Field(name, new FieldType(nullable, list, null), List.of(element));
    }
    if (type instanceof SqlRowTypeNameSpec row) {
      List<Field> children = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      for (int i = 0; i < row.getArity(); i++) {
        String child = row.getFieldNames().get(i).getSimple();
        if (!seen.add(child)) {
          throw new SqlException(SqlException.Kind.INVALID, "column '" + name + "': field '"
              + child + "' is declared twice", line(spec), col(spec), null);
        }
        children.add(field(child, row.getFieldTypes().get(i), sizes, false));
      }
      return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), children);
    }
    if (type instanceof SqlUserDefinedTypeNameSpec
        && "FILE".equalsIgnoreCase(type.getTypeName().names.getLast())) {
      return DataLocationCodec.field(name, nullable);
    }
    ArrowType scalar = scalar(name, type, spec);
    return new Field(name, new FieldType(nullable, scalar, null), null);
  }

  private static ArrowType scalar(String column, SqlTypeNameSpec type, SqlDataTypeSpec spec) {
    String written = type.getTypeName().names.getLast().toUpperCase(Locale.ROOT);
    if (type instanceof SqlUserDefinedTypeNameSpec) {
      return switch (written) {
        case "TEXT", "STRING", "CLOB" -> ArrowType.Utf8.INSTANCE;
        case "INT2" -> new ArrowType.Int(16, true);
        case "INT4" -> new ArrowType.Int(32, true);
        case "INT8" -> new ArrowType.Int(64, true);
        case "FLOAT4" -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
        case "FLOAT8" -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
        case "BOOL" -> ArrowType.Bool.INSTANCE;
        case "BYTEA", "BLOB" -> ArrowType.Binary.INSTANCE;
        default -> throw unsupported(column, written, spec);
      };
    }
    if (!(type instanceof SqlBasicTypeNameSpec basic)) {
      throw unsupported(column, written, spec);
    }
    SqlTypeName name = SqlTypeName.get(written);
    if (name == null) {
      throw unsupported(column, written, spec);
    }
    return switch (name) {
      case BOOLEAN -> ArrowType.Bool.INSTANCE;
      case TINYINT -> new ArrowType.Int(8, true);
      case SMALLINT -> new ArrowType.Int(16, true);
      case INTEGER -> new ArrowType.Int(32, true);
      case BIGINT -> new ArrowType.Int(64, true);
      case REAL -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case FLOAT, DOUBLE -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DECIMAL -> decimal(column, basic, spec);
      case CHAR, VARCHAR -> ArrowType.Utf8.INSTANCE;
      case BINARY, VARBINARY -> ArrowType.Binary.INSTANCE;
      case DATE -> new ArrowType.Date(DateUnit.DAY);
      case TIMESTAMP, TIMESTAMP_WITH_LOCAL_TIME_ZONE, TIMESTAMP_TZ ->
          new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
      default -> throw unsupported(column, written, spec);
    };
  }

  private static ArrowType decimal(String column, SqlBasicTypeNameSpec basic, SqlDataTypeSpec spec) {
    int precision = basic.getPrecision() < 0 ? dev.lake.exec.SqlType.MAX_DECIMAL_PRECISION
        : basic.getPrecision();
    int scale = Math.max(0, basic.getScale());
    if (precision < 1 || precision > dev.lake.exec.SqlType.MAX_DECIMAL_PRECISION || scale > precision) {
      throw new SqlException(SqlException.Kind.INVALID, "column '" + column + "': DECIMAL("
          + precision + ", " + scale + ") is out of range: precision 1 to "
          + dev.lake.exec.SqlType.MAX_DECIMAL_PRECISION + ", scale 0 to the precision",
          line(spec), col(spec), null);
    }
    return new ArrowType.Decimal(precision, scale, 128);
  }

  private static SqlException unsupported(String column, String type, SqlNode at) {
    return new SqlException(SqlException.Kind.UNSUPPORTED, "column '" + column + "': type "
        + type + " is not supported; supported: BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT,"
        + " REAL, DOUBLE, DECIMAL(p, s), VARCHAR, VARBINARY, DATE, TIMESTAMP, FILE, ROW(...),"
        + " T[], T[n]", line(at), col(at), null);
  }

  static int line(SqlNode node) {
    return node.getParserPosition().getLineNum();
  }

  static int col(SqlNode node) {
    return node.getParserPosition().getColumnNum();
  }
}
