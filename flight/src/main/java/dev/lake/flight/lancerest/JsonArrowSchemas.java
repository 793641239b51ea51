package dev.lake.flight.lancerest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Arrow schemas in the Lance Namespace's {@code JsonArrowSchema} form: {@code {fields: [{name,
 * nullable, type: {type, length?, fields?}, metadata?}], metadata?}}, with the type names Lance's
 * own conversion uses.
 */
final class JsonArrowSchemas {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private JsonArrowSchemas() {}

  static ObjectNode toJson(Schema schema) {
    ObjectNode node = JSON.objectNode();
    node.set("fields", fields(schema.getFields()));
    metadata(node, schema.getCustomMetadata());
    return node;
  }

  private static ArrayNode fields(List<Field> fields) {
    ArrayNode array = JSON.arrayNode();
    for (Field field : fields) {
      ObjectNode node = JSON.objectNode();
      node.put("name", field.getName());
      node.put("nullable", field.isNullable());
      node.set("type", type(field));
      metadata(node, field.getMetadata());
      array.add(node);
    }
    return array;
  }

  private static void metadata(ObjectNode node, Map<String, String> metadata) {
    if (metadata != null && !metadata.isEmpty()) {
      ObjectNode map = node.putObject("metadata");
      metadata.forEach(map::put);
    }
  }

  private static ObjectNode type(Field field) {
    ObjectNode node = JSON.objectNode();
    ArrowType type = field.getType();
    switch (type) {
      case ArrowType.Int i -> node.put("type", (i.getIsSigned() ? "int" : "uint") + i.getBitWidth());
      case ArrowType.FloatingPoint f -> node.put("type", f.getPrecision() == FloatingPointPrecision.HALF ? "float16"
          : f.getPrecision() == FloatingPointPrecision.SINGLE ? "float32" : "float64");
      case ArrowType.Bool b -> node.put("type", "bool");
      case ArrowType.Utf8 u -> node.put("type", "utf8");
      case ArrowType.LargeUtf8 u -> node.put("type", "large_utf8");
      case ArrowType.Binary b -> node.put("type", "binary");
      case ArrowType.LargeBinary b -> node.put("type", "large_binary");
      case ArrowType.FixedSizeBinary b -> {
        node.put("type", "fixed_size_binary");
        node.put("length", b.getByteWidth());
      }
      case ArrowType.Date d -> node.put("type", d.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? "date32" : "date64");
      case ArrowType.Null n -> node.put("type", "null");
      // as Lance's own conversion answers: the unit and zone are not carried
      case ArrowType.Timestamp t -> node.put("type", "timestamp");
      case ArrowType.List l -> {
        node.put("type", "list");
        node.set("fields", fields(field.getChildren()));
      }
      case ArrowType.LargeList l -> {
        node.put("type", "large_list");
        node.set("fields", fields(field.getChildren()));
      }
      case ArrowType.FixedSizeList l -> {
        node.put("type", "fixed_size_list");
        node.put("length", l.getListSize());
        node.set("fields", fields(field.getChildren()));
      }
      case ArrowType.Struct s -> {
        node.put("type", "struct");
        node.set("fields", fields(field.getChildren()));
      }
      default -> node.put("type", type.toString().toLowerCase(java.util.Locale.ROOT));
    }
    return node;
  }
}
