package dev.lake.iceberg;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * An Iceberg {@link FileIO} over the local file system ({@code file:} URIs and absolute paths)
 * without Hadoop, whose user lookup fails on JDK 24 and later. The default FileIO of a catalog
 * whose settings name no other {@code io-impl}.
 */
public final class LocalFileIO implements FileIO {
  private static final long serialVersionUID = 1L;

  public LocalFileIO() {}

  private static File file(String location) {
    return location.startsWith("file:") ? Path.of(URI.create(location.replaceFirst("^file:/+", "file:///"))).toFile()
        : new File(location);
  }

  @Override
  public InputFile newInputFile(String path) {
    return org.apache.iceberg.Files.localInput(file(path));
  }

  @Override
  public OutputFile newOutputFile(String path) {
    File f = file(path);
    f.getParentFile().mkdirs();
    return org.apache.iceberg.Files.localOutput(f);
  }

  @Override
  public void deleteFile(String path) {
    try {
      Files.deleteIfExists(file(path).toPath());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
