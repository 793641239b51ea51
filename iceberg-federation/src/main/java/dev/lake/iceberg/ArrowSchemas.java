package dev.lake.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Iceberg types as Arrow types. Each field carries its Iceberg field id in metadata
 * ({@value #FIELD_ID}); uuid is a 16-byte fixed binary tagged {@value #ICEBERG_TYPE}=uuid.
 */
final class ArrowSchemas {
  static final String FIELD_ID = "iceberg.field_id";
  static final String ICEBERG_TYPE = "iceberg.type";

  private ArrowSchemas() {}

  static Schema of(org.apache.iceberg.Schema schema) {
    List<Field> fields = new ArrayList<>();
    for (Types.NestedField f : schema.columns()) {
      fields.add(field(f));
    }
    return new Schema(fields);
  }

  static Field field(Types.NestedField f) {
    return field(f.name(), f.fieldId(), f.isOptional(), f.type());
  }

  private static Field field(String name, int id, boolean nullable, Type type) {
    Map<String, String> metadata = type.typeId() == Type.TypeID.UUID
        ? Map.of(FIELD_ID, Integer.toString(id), ICEBERG_TYPE, "uuid")
        : Map.of(FIELD_ID, Integer.toString(id));
    List<Field> children = switch (type) {
      case Types.StructType s -> s.fields().stream().map(ArrowSchemas::field).toList();
      case Types.ListType l -> List.of(field("element", l.elementId(), l.isElementOptional(), l.elementType()));
      case Types.MapType m -> List.of(new Field("entries", new FieldType(false, ArrowType.Struct.INSTANCE, null),
          List.of(field("key", m.keyId(), false, m.keyType()),
              field("value", m.valueId(), m.isValueOptional(), m.valueType()))));
      default -> List.of();
    };
    return new Field(name, new FieldType(nullable, arrow(type), null, metadata), children);
  }

  /**
   * The Arrow type of an Iceberg type.
   *
   * @throws UnsupportedTypeException for types lake cannot read yet (nanosecond timestamps,
   *     variant, geometry, unknown)
   */
  static ArrowType arrow(Type type) {
    return switch (type.typeId()) {
      case BOOLEAN -> ArrowType.Bool.INSTANCE;
      case INTEGER -> new ArrowType.Int(32, true);
      case LONG -> new ArrowType.Int(64, true);
      case FLOAT -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case DOUBLE -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DECIMAL -> {
        Types.DecimalType d = (Types.DecimalType) type;
        yield new ArrowType.Decimal(d.precision(), d.scale(), 128);
      }
      case DATE -> new ArrowType.Date(DateUnit.DAY);
      case TIME -> new ArrowType.Time(TimeUnit.MICROSECOND, 64);
      case TIMESTAMP -> new ArrowType.Timestamp(TimeUnit.MICROSECOND,
          ((Types.TimestampType) type).shouldAdjustToUTC() ? "UTC" : null);
      case STRING -> ArrowType.Utf8.INSTANCE;
      case UUID -> new ArrowType.FixedSizeBinary(16);
      case FIXED -> new ArrowType.FixedSizeBinary(((Types.FixedType) type).length());
      case BINARY -> ArrowType.Binary.INSTANCE;
      case STRUCT -> ArrowType.Struct.INSTANCE;
      case LIST -> ArrowType.List.INSTANCE;
      case MAP -> new ArrowType.Map(false);
      default -> throw new UnsupportedTypeException(type);
    };
  }
}
