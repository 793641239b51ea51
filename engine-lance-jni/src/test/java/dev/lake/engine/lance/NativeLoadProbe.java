package dev.lake.engine.lance;

import dev.lake.engine.TableEngine;
import dev.lake.engine.TableEngineFactory;
import dev.lake.engine.TableLocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Stream;

/**
 * Child process of {@link LanceNativeTest}: creates every engine through {@link ServiceLoader} as
 * {@code lake dev} does, reports whether Lance's library is mapped and how many copies of it sit
 * in the temp folder, then creates one lance table, reports again and waits to be killed.
 */
public final class NativeLoadProbe {

  public static void main(String[] args) throws Exception {
    List<TableEngine> engines = new ArrayList<>();
    TableEngine lance = null;
    for (TableEngineFactory f : ServiceLoader.load(TableEngineFactory.class)) {
      TableEngine e = f.create(Map.of());
      engines.add(e);
      if (e.name().equals(LanceEngineFactory.NAME)) {
        lance = e;
      }
    }
    report("CREATED");
    lance.create(TableLocation.of(Path.of(args[0])), TestData.SCHEMA).close();
    report("USED");
    Thread.sleep(Long.MAX_VALUE);
  }

  private static void report(String stage) throws IOException {
    boolean mapped = Files.readString(Path.of("/proc/self/maps")).contains("liblance_jni");
    long copies;
    try (Stream<Path> files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      copies = files.filter(p -> p.getFileName().toString().startsWith("liblance_jni")).count();
    }
    System.out.println(stage + " mapped=" + mapped + " copies=" + copies);
    System.out.flush();
  }
}
