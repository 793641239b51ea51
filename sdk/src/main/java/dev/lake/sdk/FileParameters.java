package dev.lake.sdk;

import dev.lake.engine.DataLocation;
import dev.lake.engine.DataLocationCodec;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The {@code FILE} values of one statement ({@link FileUpload}s and {@link DataLocation}s): every
 * parameter is checked against the statement's parameter schema, every local file and every
 * location's tenant before the first byte is uploaded; then the files are uploaded one after
 * another and replaced by their locations.
 */
final class FileParameters {
  private FileParameters() {}

  /** Whether {@code values} hold a FileUpload or a DataLocation. */
  static boolean any(Object[] values) {
    for (Object value : values) {
      if (value instanceof FileUpload || value instanceof DataLocation) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code values} with each FileUpload replaced by the location of its uploaded object.
   *
   * @param stage the caller's stage, asked for only when a FILE value needs it
   * @throws LakeException.InvalidArgument for a wrong count, a value of the wrong type (a
   *     FileUpload or DataLocation for a column that is not FILE, anything else for a FILE
   *     column) or a local file that is missing, not a regular file or unreadable; nothing is
   *     uploaded then
   * @throws LakeException.PermissionDenied for a DataLocation outside the caller's tenant
   *     prefix; nothing is uploaded then
   * @throws LakeException.StageFailed if an upload fails (files uploaded before it stay in the
   *     stage, unreferenced)
   */
  static Object[] upload(BufferAllocator allocator, Schema schema, Object[] values,
      Supplier<ObjectStage> stage) {
    Parameters.checkCount(schema, values);
    List<Field> fields = schema.getFields();
    Object[] others = values.clone();
    for (int i = 0; i < values.length; i++) {
      Field field = fields.get(i);
      Object value = values[i];
      boolean fileColumn = DataLocationCodec.isFile(field);
      if (value instanceof FileUpload || value instanceof DataLocation) {
        if (!fileColumn) {
          throw new LakeException.InvalidArgument(Parameters.describe(field, i + 1)
              + " is not a FILE column: it cannot take a " + value.getClass().getSimpleName(),
              null);
        }
        others[i] = null;
      } else if (fileColumn && value != null) {
        throw new LakeException.InvalidArgument(Parameters.describe(field, i + 1)
            + " takes a FileUpload or a DataLocation, not a " + value.getClass().getSimpleName(),
            null);
      }
    }
    // The other values' types, checked by binding them once locally (nothing is sent).
    Parameters.bind(allocator, schema, others).close();
    for (int i = 0; i < values.length; i++) {
      if (values[i] instanceof FileUpload upload) {
        checkReadable(Parameters.describe(fields.get(i), i + 1), upload.path());
      }
    }
    if (!any(values)) {
      return values;
    }
    ObjectStage objects = stage.get();
    for (int i = 0; i < values.length; i++) {
      if (values[i] instanceof DataLocation location && !objects.owns(location)) {
        throw new LakeException.PermissionDenied(Parameters.describe(fields.get(i), i + 1) + ": "
            + location.uri() + " is not an object of tenant " + objects.descriptor().tenant()
            + "'s stage", null);
      }
    }
    Object[] bound = values.clone();
    for (int i = 0; i < values.length; i++) {
      if (values[i] instanceof FileUpload upload) {
        bound[i] = put(objects, Parameters.describe(fields.get(i), i + 1), upload);
      }
    }
    return bound;
  }

  private static void checkReadable(String parameter, Path path) {
    if (!Files.isRegularFile(path)) {
      throw new LakeException.InvalidArgument(parameter + ": " + path
          + (Files.exists(path) ? " is not a regular file" : " does not exist"),
          new NoSuchFileException(path.toString()));
    }
    if (!Files.isReadable(path)) {
      throw new LakeException.InvalidArgument(parameter + ": " + path + " is not readable",
          new AccessDeniedException(path.toString()));
    }
  }

  private static DataLocation put(ObjectStage stage, String parameter, FileUpload upload) {
    try {
      DataLocation location = stage.put(upload.path(), upload.mimeType(), upload.progress());
      upload.progress().onStored(location);
      return location;
    } catch (NoSuchFileException | AccessDeniedException e) {
      throw new LakeException.InvalidArgument(parameter + ": " + upload.path()
          + " cannot be read: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new LakeException.StageFailed(parameter + ": uploading " + upload.path()
          + " to the stage failed: " + e.getMessage(), e);
    }
  }
}
