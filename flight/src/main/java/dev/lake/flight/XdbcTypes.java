package dev.lake.flight;

import java.nio.charset.StandardCharsets;
import java.sql.Types;
import java.util.List;
import org.apache.arrow.flight.sql.FlightSqlProducer;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;

/**
 * The answer to {@code GetXdbcTypeInfo}: one row per SQL type lake stores, ordered by JDBC data
 * type as {@link java.sql.DatabaseMetaData#getTypeInfo} requires. {@code data_type} is the code
 * the stock Flight SQL JDBC driver reports for a column of that Arrow type (so a tool can look a
 * column's type up here): single-precision floats are {@code FLOAT}, timestamps (microseconds,
 * UTC) {@code TIMESTAMP_WITH_TIMEZONE}, structs {@code JAVA_OBJECT}, every kind of list
 * {@code ARRAY}. Binary, list and struct values can be stored and selected but not compared, so
 * they are not searchable and have no literal syntax.
 */
final class XdbcTypes {

  private XdbcTypes() {}

  // java.sql.DatabaseMetaData's searchability codes.
  private static final int PRED_NONE = 0;
  private static final int PRED_BASIC = 2;
  private static final int SEARCHABLE = 3;
  // ODBC's SQL_DATETIME and its subcodes, for sql_data_type / datetime_subcode.
  private static final int SQL_DATETIME = 9;
  private static final int SUBCODE_DATE = 1;
  private static final int SUBCODE_TIMESTAMP = 3;

  /** One row of the result; null fields are NULL. */
  record TypeInfo(String name, int dataType, Integer columnSize, String literalPrefix,
      String literalSuffix, List<String> createParams, boolean caseSensitive, int searchable,
      Boolean unsigned, Boolean autoIncrement, Integer minimumScale, Integer maximumScale,
      int sqlDataType, Integer datetimeSubcode, Integer radix) {}

  static final List<TypeInfo> TYPES = List.of(
      numeric("TINYINT", Types.TINYINT, 3),
      numeric("BIGINT", Types.BIGINT, 19),
      new TypeInfo("VARBINARY", Types.VARBINARY, null, null, null, null, false, PRED_NONE,
          null, null, null, null, Types.VARBINARY, null, null),
      new TypeInfo("DECIMAL", Types.DECIMAL, 38, null, null, List.of("precision", "scale"),
          false, PRED_BASIC, false, false, 0, 38, Types.DECIMAL, null, 10),
      numeric("INTEGER", Types.INTEGER, 10),
      numeric("SMALLINT", Types.SMALLINT, 5),
      new TypeInfo("REAL", Types.FLOAT, 24, null, null, null, false, PRED_BASIC, false, false,
          null, null, Types.FLOAT, null, 2),
      new TypeInfo("DOUBLE", Types.DOUBLE, 53, null, null, null, false, PRED_BASIC, false, false,
          null, null, Types.DOUBLE, null, 2),
      new TypeInfo("VARCHAR", Types.VARCHAR, null, "'", "'", null, true, SEARCHABLE, null, null,
          null, null, Types.VARCHAR, null, null),
      new TypeInfo("BOOLEAN", Types.BOOLEAN, 1, null, null, null, false, PRED_BASIC, null, null,
          null, null, Types.BOOLEAN, null, null),
      new TypeInfo("DATE", Types.DATE, 10, "DATE '", "'", null, false, PRED_BASIC, null, null,
          null, null, SQL_DATETIME, SUBCODE_DATE, null),
      new TypeInfo("STRUCT", Types.JAVA_OBJECT, null, null, null, null, false, PRED_NONE, null,
          null, null, null, Types.JAVA_OBJECT, null, null),
      new TypeInfo("ARRAY", Types.ARRAY, null, null, null, null, false, PRED_NONE, null, null,
          null, null, Types.ARRAY, null, null),
      // 'YYYY-MM-DD HH:MM:SS.ffffff': 26 characters.
      new TypeInfo("TIMESTAMP", Types.TIMESTAMP_WITH_TIMEZONE, 26, "TIMESTAMP '", "'", null,
          false, PRED_BASIC, null, null, 6, 6, SQL_DATETIME, SUBCODE_TIMESTAMP, null));

  private static TypeInfo numeric(String name, int type, int digits) {
    return new TypeInfo(name, type, digits, null, null, null, false, PRED_BASIC, false, false,
        0, 0, type, null, 10);
  }

  /** Fills {@code root} (of {@link FlightSqlProducer.Schemas#GET_TYPE_INFO_SCHEMA}) with the types, or the one of {@code dataType}. */
  static void fill(VectorSchemaRoot root, Integer dataType) {
    List<TypeInfo> rows = TYPES.stream()
        .filter(t -> dataType == null || t.dataType() == dataType)
        .toList();
    ListVector createParams = (ListVector) root.getVector("create_params");
    VarCharVector paramNames = (VarCharVector) createParams.getDataVector();
    for (int i = 0; i < rows.size(); i++) {
      TypeInfo t = rows.get(i);
      text(root, "type_name", i, t.name());
      integer(root, "data_type", i, t.dataType());
      integer(root, "column_size", i, t.columnSize());
      text(root, "literal_prefix", i, t.literalPrefix());
      text(root, "literal_suffix", i, t.literalSuffix());
      if (t.createParams() != null) {
        int offset = createParams.startNewValue(i);
        for (int p = 0; p < t.createParams().size(); p++) {
          paramNames.setSafe(offset + p, t.createParams().get(p).getBytes(StandardCharsets.UTF_8));
        }
        createParams.endValue(i, t.createParams().size());
      } else {
        createParams.setNull(i);
      }
      integer(root, "nullable", i, java.sql.DatabaseMetaData.typeNullable);
      bool(root, "case_sensitive", i, t.caseSensitive());
      integer(root, "searchable", i, t.searchable());
      bool(root, "unsigned_attribute", i, t.unsigned());
      bool(root, "fixed_prec_scale", i, false);
      bool(root, "auto_increment", i, t.autoIncrement());
      text(root, "local_type_name", i, t.name());
      integer(root, "minimum_scale", i, t.minimumScale());
      integer(root, "maximum_scale", i, t.maximumScale());
      integer(root, "sql_data_type", i, t.sqlDataType());
      integer(root, "datetime_subcode", i, t.datetimeSubcode());
      integer(root, "num_prec_radix", i, t.radix());
      integer(root, "interval_precision", i, null);
    }
    root.setRowCount(rows.size());
  }

  private static void text(VectorSchemaRoot root, String field, int row, String value) {
    VarCharVector vector = (VarCharVector) root.getVector(field);
    if (value == null) {
      vector.setNull(row);
    } else {
      vector.setSafe(row, value.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static void integer(VectorSchemaRoot root, String field, int row, Integer value) {
    IntVector vector = (IntVector) root.getVector(field);
    if (value == null) {
      vector.setNull(row);
    } else {
      vector.setSafe(row, value);
    }
  }

  private static void bool(VectorSchemaRoot root, String field, int row, Boolean value) {
    BitVector vector = (BitVector) root.getVector(field);
    if (value == null) {
      vector.setNull(row);
    } else {
      vector.setSafe(row, value ? 1 : 0);
    }
  }
}
