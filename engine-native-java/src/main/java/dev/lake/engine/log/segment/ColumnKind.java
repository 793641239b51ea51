package dev.lake.engine.log.segment;

import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The physical column types a segment stores, with their Arrow buffer layout. Every kind is a
 * flat Arrow vector whose buffers are written raw: a validity bitmap, then offsets for the
 * variable-width kinds, then values.
 */
public enum ColumnKind {
  INT8(1, true), INT16(2, true), INT32(4, true), INT64(8, true),
  UINT8(1, false), UINT16(2, false), UINT32(4, false), UINT64(8, false),
  FLOAT32(4, true), FLOAT64(8, true),
  BOOL(0, true),
  UTF8(-1, true), BINARY(-1, false),
  DATE_DAY(4, true), DATE_MILLI(8, true),
  TIMESTAMP(8, true),
  DECIMAL128(16, true);

  private final int width;
  private final boolean hasStats;

  ColumnKind(int width, boolean hasStats) {
    this.width = width;
    this.hasStats = hasStats;
  }

  /** The kind storing {@code field}, or null when segments cannot store it. */
  public static ColumnKind of(Field field) {
    if (!field.getChildren().isEmpty() || field.getDictionary() != null) {
      return null;
    }
    ArrowType type = field.getType();
    return switch (type) {
      case ArrowType.Int i -> switch (i.getBitWidth()) {
        case 8 -> i.getIsSigned() ? INT8 : UINT8;
        case 16 -> i.getIsSigned() ? INT16 : UINT16;
        case 32 -> i.getIsSigned() ? INT32 : UINT32;
        case 64 -> i.getIsSigned() ? INT64 : UINT64;
        default -> null;
      };
      case ArrowType.FloatingPoint f -> switch (f.getPrecision()) {
        case SINGLE -> FLOAT32;
        case DOUBLE -> FLOAT64;
        default -> null;
      };
      case ArrowType.Bool b -> BOOL;
      case ArrowType.Utf8 u -> UTF8;
      case ArrowType.Binary b -> BINARY;
      case ArrowType.Date d -> switch (d.getUnit()) {
        case DAY -> DATE_DAY;
        case MILLISECOND -> DATE_MILLI;
      };
      case ArrowType.Timestamp t -> TIMESTAMP;
      case ArrowType.Decimal d -> d.getBitWidth() == 128 ? DECIMAL128 : null;
      default -> null;
    };
  }

  boolean variableWidth() {
    return width < 0;
  }

  boolean hasStats() {
    return hasStats;
  }

  int bufferCount() {
    return variableWidth() ? 3 : 2;
  }

  /**
   * The byte length of buffer {@code index} for {@code rows} rows; for the data buffer of a
   * variable-width kind it is only known from the offsets, so -1.
   */
  long bufferLength(int index, int rows) {
    if (index == 0) {
      return (rows + 7L) / 8;
    }
    if (variableWidth()) {
      return index == 1 ? (rows + 1L) * 4 : -1;
    }
    return this == BOOL ? (rows + 7L) / 8 : (long) rows * width;
  }
}
