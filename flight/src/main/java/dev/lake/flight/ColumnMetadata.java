package dev.lake.flight;

import dev.lake.sql.ColumnOrigin;
import dev.lake.sql.PreparedQuery;
import dev.lake.sql.SqlCatalog;
import dev.lake.sql.TableName;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.flight.sql.FlightSqlColumnMetadata;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Flight SQL's column metadata ({@code ARROW:FLIGHT:SQL:*}, {@link FlightSqlColumnMetadata}) on
 * every result schema lake sends, so that JDBC's {@code ResultSetMetaData} and {@code
 * getColumns} report the type name, precision and scale (a decimal's, not 0), case sensitivity,
 * searchability and, for a column passed through from a table, its catalog, schema and table.
 *
 * <p>Everything but the origin is derived from the Arrow type alone, so a table's column and the
 * same column selected from it carry the same metadata. lake tables are append-only: no column
 * is writable through a result, so every column is read-only, and none auto-increments.
 */
final class ColumnMetadata {

  private ColumnMetadata() {}

  /** The schema of {@code query}'s results with column metadata and origins. */
  static Schema of(PreparedQuery query) {
    Schema schema = query.schema();
    List<Optional<ColumnOrigin>> origins = query.origins();
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < schema.getFields().size(); i++) {
      Optional<ColumnOrigin> origin = i < origins.size() ? origins.get(i) : Optional.empty();
      fields.add(annotate(schema.getFields().get(i), origin.map(ColumnOrigin::table)));
    }
    return new Schema(fields, schema.getCustomMetadata());
  }

  /** A table's schema with column metadata naming the table, as GetTables returns it. */
  static Schema ofTable(TableName table, Schema schema) {
    List<Field> fields = new ArrayList<>();
    for (Field field : schema.getFields()) {
      fields.add(annotate(field, Optional.of(table)));
    }
    return new Schema(fields, schema.getCustomMetadata());
  }

  private static Field annotate(Field field, Optional<TableName> table) {
    ArrowType type = field.getType();
    FlightSqlColumnMetadata.Builder builder = new FlightSqlColumnMetadata.Builder()
        .typeName(typeName(type))
        .isAutoIncrement(false)
        .isCaseSensitive(type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8)
        .isReadOnly(true)
        .isSearchable(searchable(type));
    precision(type).ifPresent(builder::precision);
    scale(type).ifPresent(builder::scale);
    table.ifPresent(t -> builder.catalogName(t.catalog()).schemaName(t.schema())
        .tableName(t.table()));
    Map<String, String> metadata = new HashMap<>();
    if (field.getMetadata() != null) {
      metadata.putAll(field.getMetadata());
    }
    metadata.putAll(builder.build().getMetadataMap());
    FieldType fieldType = new FieldType(field.isNullable(), type, field.getDictionary(), metadata);
    return new Field(field.getName(), fieldType, field.getChildren());
  }

  /** lake's SQL spelling of a type (what CAST and DDL take); Arrow's name for types SQL lacks. */
  static String typeName(ArrowType type) {
    return switch (type) {
      case ArrowType.Int i when i.getIsSigned() -> switch (i.getBitWidth()) {
        case 8 -> "TINYINT";
        case 16 -> "SMALLINT";
        case 32 -> "INTEGER";
        default -> "BIGINT";
      };
      case ArrowType.FloatingPoint f ->
          f.getPrecision() == org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE
              ? "REAL" : "DOUBLE";
      case ArrowType.Bool b -> "BOOLEAN";
      case ArrowType.Utf8 u -> "VARCHAR";
      case ArrowType.LargeUtf8 u -> "VARCHAR";
      case ArrowType.Decimal d -> "DECIMAL";
      case ArrowType.Date d -> "DATE";
      case ArrowType.Timestamp t -> "TIMESTAMP";
      case ArrowType.Binary b -> "VARBINARY";
      case ArrowType.LargeBinary b -> "VARBINARY";
      case ArrowType.List l -> "ARRAY";
      case ArrowType.LargeList l -> "ARRAY";
      case ArrowType.FixedSizeList l -> "ARRAY";
      case ArrowType.Struct s -> "STRUCT";
      default -> type.getTypeID().name();
    };
  }

  private static Optional<Integer> precision(ArrowType type) {
    return switch (type) {
      case ArrowType.Int i when i.getIsSigned() -> Optional.of(switch (i.getBitWidth()) {
        case 8 -> 3;
        case 16 -> 5;
        case 32 -> 10;
        default -> 19;
      });
      case ArrowType.FloatingPoint f -> Optional.of(
          f.getPrecision() == org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE ? 24 : 53);
      case ArrowType.Decimal d -> Optional.of(d.getPrecision());
      case ArrowType.Bool b -> Optional.of(1);
      case ArrowType.Date d -> Optional.of(10);
      case ArrowType.Timestamp t -> Optional.of(26);
      default -> Optional.empty();
    };
  }

  private static Optional<Integer> scale(ArrowType type) {
    return switch (type) {
      case ArrowType.Int i -> Optional.of(0);
      case ArrowType.Decimal d -> Optional.of(d.getScale());
      case ArrowType.Timestamp t -> Optional.of(6);
      default -> Optional.empty();
    };
  }

  // Values lake can compare in WHERE; binary, lists and structs pass through only.
  private static boolean searchable(ArrowType type) {
    return !(type instanceof ArrowType.Binary || type instanceof ArrowType.LargeBinary
        || type instanceof ArrowType.FixedSizeBinary || type instanceof ArrowType.List
        || type instanceof ArrowType.LargeList || type instanceof ArrowType.FixedSizeList
        || type instanceof ArrowType.Struct || type instanceof ArrowType.Map);
  }
}
