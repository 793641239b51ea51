package dev.lake.flight;

import java.util.Iterator;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.util.ValueVectorUtility;
import org.apache.arrow.vector.validate.ValidateUtil;
import org.apache.arrow.vector.validate.ValidateVectorBufferVisitor;
import org.apache.arrow.vector.validate.ValidateVectorDataVisitor;

/**
 * Checks a received record batch completely before ingest keeps it, so that nothing a client
 * sends can be committed unless every reader can read it back as sent:
 * <ul>
 *   <li>the header's structure: one field node per column (children included) and the buffer
 *       count each type has, every node's length equal to the batch's declared row count (a
 *       child's within its bounds) and its null count between 0 and its length;
 *   <li>validity bitmaps: long enough for the node, and holding exactly the NULLs the node
 *       declares (Arrow's loader trusts a declared 0 and would turn NULLs into values);
 *   <li>what Arrow's own {@link ValueVectorUtility#validateFull} checks once the batch is loaded:
 *       buffer sizes against lengths and widths, offsets that start in range, never decrease and
 *       stay within the data, UTF-8 of string values, list and struct children.
 * </ul>
 * A failure is an {@link FlightIpc.IpcException} naming the batch, the column and what is wrong.
 * Loading shares the batch's buffers (nothing is copied) and the batch stays owned by the caller.
 *
 * <p>Public only for lake's own Flight servers (the Metasrv package); not an API.
 */
public final class IngestValidator {

  /** Arrow's messages can quote a vector; the client sees at most this much of one. */
  private static final int MAX_DETAIL = 200;

  private IngestValidator() {}

  /**
   * @param index the batch's position in the stream (0-based), for the message
   * @throws FlightIpc.IpcException if the batch is malformed
   */
  public static void validate(Schema schema, ArrowRecordBatch batch, int index,
      BufferAllocator allocator) {
    String where = "record batch " + index;
    long rows = batch.getLength();
    if (rows < 0) {
      throw new FlightIpc.IpcException(where + " declares a negative row count " + rows);
    }
    Iterator<ArrowFieldNode> nodes = batch.getNodes().iterator();
    Iterator<ArrowBuf> buffers = batch.getBuffers().iterator();
    for (Field field : schema.getFields()) {
      try {
        checkStructure(where, field, "'" + field.getName() + "'", rows, true, nodes, buffers);
      } catch (FlightIpc.IpcException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new FlightIpc.IpcException(where + " column '" + field.getName()
            + "' cannot be checked: " + bounded(e.getMessage()));
      }
    }
    if (nodes.hasNext() || buffers.hasNext()) {
      throw new FlightIpc.IpcException(where + " has " + batch.getNodes().size()
          + " field nodes and " + batch.getBuffers().size()
          + " buffers, more than its schema's columns use");
    }
    VectorSchemaRoot root;
    try {
      root = VectorSchemaRoot.create(schema, allocator);
    } catch (RuntimeException e) {
      throw new FlightIpc.IpcException("the ingest schema has no Arrow vectors: "
          + bounded(e.getMessage()));
    }
    try (root) {
      try {
        new VectorLoader(root).load(batch);
      } catch (RuntimeException e) {
        throw new FlightIpc.IpcException(where + " cannot be loaded: " + bounded(e.getMessage()));
      }
      for (FieldVector vector : root.getFieldVectors()) {
        String column = "column '" + vector.getName() + "'";
        try {
          // ValueVectorUtility.validateFull, less its type check (the vectors were made from the
          // schema, and Arrow 18.3's refuses every map) and with fixed-size lists handled.
          vector.accept(new ValidateVectorBufferVisitor(), null);
          vector.accept(new DataVisitor(), null);
        } catch (ValidateUtil.ValidateException | IndexOutOfBoundsException e) {
          throw new FlightIpc.IpcException(where + " " + column + " is malformed: "
              + bounded(e.getMessage()));
        }
      }
    }
  }

  // Walks nodes and buffers in the order Arrow lays them out: depth first, a field's own
  // buffers before its children's.
  private static void checkStructure(String where, Field field, String path, long expected,
      boolean exact, Iterator<ArrowFieldNode> nodes, Iterator<ArrowBuf> buffers) {
    if (!nodes.hasNext()) {
      throw new FlightIpc.IpcException(where + " has no field node for column " + path);
    }
    ArrowFieldNode node = nodes.next();
    int length = node.getLength();
    int nulls = node.getNullCount();
    if (length < 0 || (exact ? length != expected : length > expected)) {
      throw new FlightIpc.IpcException(where + " column " + path + " has " + length
          + " values but the batch declares " + expected + " rows");
    }
    if (nulls < 0 || nulls > length) {
      throw new FlightIpc.IpcException(where + " column " + path + " declares " + nulls
          + " NULLs in " + length + " values");
    }
    TypeLayout layout = TypeLayout.getTypeLayout(field.getType());
    List<BufferLayout.BufferType> types = layout.getBufferTypes();
    for (int i = 0; i < types.size(); i++) {
      if (!buffers.hasNext()) {
        throw new FlightIpc.IpcException(where + " lacks buffers of column " + path);
      }
      ArrowBuf buffer = buffers.next();
      if (i == 0 && types.get(i) == BufferLayout.BufferType.VALIDITY) {
        checkValidity(where, path, buffer, length, nulls);
      }
    }
    // A child of a struct or fixed-size list has exactly as many slots as its parent (times the
    // list size); a list's child is bounded by its offsets, which validateFull checks.
    for (Field child : field.getChildren()) {
      long childExpected = switch (field.getType()) {
        case org.apache.arrow.vector.types.pojo.ArrowType.Struct s -> length;
        case org.apache.arrow.vector.types.pojo.ArrowType.FixedSizeList list ->
            (long) length * list.getListSize();
        default -> Integer.MAX_VALUE;
      };
      boolean childExact = childExpected != Integer.MAX_VALUE;
      checkStructure(where, child, path + "." + child.getName(), childExpected, childExact,
          nodes, buffers);
    }
  }

  private static void checkValidity(String where, String path, ArrowBuf bitmap, int length,
      int nulls) {
    if (bitmap.capacity() == 0) {
      // Arrow lets a writer omit the bitmap of a column without NULLs (or all NULL).
      if (nulls != 0 && nulls != length) {
        throw new FlightIpc.IpcException(where + " column " + path + " declares " + nulls
            + " NULLs but has no validity bitmap");
      }
      return;
    }
    if (bitmap.capacity() < BitVectorHelper.getValidityBufferSize(length)) {
      throw new FlightIpc.IpcException(where + " column " + path + " has a validity bitmap of "
          + bitmap.capacity() + " bytes, too short for " + length + " values");
    }
    int counted = BitVectorHelper.getNullCount(bitmap, length);
    if (counted != nulls) {
      throw new FlightIpc.IpcException(where + " column " + path + " declares " + nulls
          + " NULLs but its validity bitmap holds " + counted);
    }
  }

  /**
   * Arrow's data checks (offsets, UTF-8, children). In Arrow 18.3 its fixed-size-list case asks
   * the vector for an offset buffer, which such a list has not (UnsupportedOperationException);
   * a fixed-size list has no offsets to check, only its child's data.
   */
  private static final class DataVisitor extends ValidateVectorDataVisitor {
    @Override
    public Void visit(FixedSizeListVector vector, Void value) {
      vector.getDataVector().accept(this, null);
      return null;
    }
  }

  private static String bounded(String message) {
    if (message == null) {
      return "no detail";
    }
    return message.length() <= MAX_DETAIL ? message : message.substring(0, MAX_DETAIL) + "...";
  }
}
