package dev.lake.engine;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The one Arrow shape of a {@code FILE} column: a struct of {@value #URI} (utf8),
 * {@value #MIME_TYPE} (utf8), {@value #SIZE} (int64) and {@value #SHA256} (utf8), every child NOT
 * NULL, and the field metadata {@value #TYPE_KEY}={@value #FILE} so the column stays a FILE
 * through schema round trips (table metadata, Flight SQL schemas).
 */
public final class DataLocationCodec {

  public static final String URI = "uri";
  public static final String MIME_TYPE = "mime_type";
  public static final String SIZE = "size";
  public static final String SHA256 = "sha256";
  /** Field metadata key naming lake's logical type. */
  public static final String TYPE_KEY = "lake.type";
  public static final String FILE = "file";

  private static final List<Field> CHILDREN = List.of(
      child(URI, ArrowType.Utf8.INSTANCE),
      child(MIME_TYPE, ArrowType.Utf8.INSTANCE),
      child(SIZE, new ArrowType.Int(64, true)),
      child(SHA256, ArrowType.Utf8.INSTANCE));

  private DataLocationCodec() {}

  private static Field child(String name, ArrowType type) {
    return new Field(name, FieldType.notNullable(type), null);
  }

  /** The field of a FILE column named {@code name}. */
  public static Field field(String name, boolean nullable) {
    return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null,
        Map.of(TYPE_KEY, FILE)), CHILDREN);
  }

  /**
   * Whether {@code field} is a FILE column: marked as one and shaped as one (a struct whose
   * children are exactly the codec's, in order).
   */
  public static boolean isFile(Field field) {
    if (field == null || field.getMetadata() == null
        || !FILE.equals(field.getMetadata().get(TYPE_KEY))
        || !(field.getType() instanceof ArrowType.Struct)
        || field.getChildren().size() != CHILDREN.size()) {
      return false;
    }
    for (int i = 0; i < CHILDREN.size(); i++) {
      Field want = CHILDREN.get(i);
      Field got = field.getChildren().get(i);
      if (!want.getName().equals(got.getName()) || !want.getType().equals(got.getType())) {
        return false;
      }
    }
    return true;
  }

  /**
   * Writes {@code location} (null: a null value) at {@code index} of a FILE column's vector, which
   * the caller has allocated; sets nothing else (the caller sets the value count).
   */
  public static void write(StructVector vector, int index, DataLocation location) {
    if (location == null) {
      vector.setNull(index);
      return;
    }
    vector.setIndexDefined(index);
    text(vector, URI).setSafe(index, bytes(location.uri().toString()));
    text(vector, MIME_TYPE).setSafe(index, bytes(location.mimeType()));
    vector.getChild(SIZE, BigIntVector.class).setSafe(index, location.size());
    text(vector, SHA256).setSafe(index, bytes(location.sha256()));
  }

  /**
   * The location at {@code index}, or null for a null value.
   *
   * @throws IllegalArgumentException if the stored values are not a valid {@link DataLocation}
   *     (for example a relative URI or a malformed digest)
   */
  public static DataLocation read(StructVector vector, int index) {
    if (vector.isNull(index)) {
      return null;
    }
    BigIntVector size = vector.getChild(SIZE, BigIntVector.class);
    return new DataLocation(java.net.URI.create(string(text(vector, URI), index)),
        string(text(vector, MIME_TYPE), index), size.get(index),
        string(text(vector, SHA256), index));
  }

  private static VarCharVector text(StructVector vector, String name) {
    VarCharVector child = vector.getChild(name, VarCharVector.class);
    if (child == null) {
      throw new IllegalArgumentException("vector '" + vector.getName() + "' is not a FILE column:"
          + " it has no child '" + name + "'");
    }
    return child;
  }

  private static String string(VarCharVector vector, int index) {
    if (vector.isNull(index)) {
      throw new IllegalArgumentException("FILE value at row " + index + " has a null '"
          + vector.getName() + "'");
    }
    return new String(vector.get(index), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
