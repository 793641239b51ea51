package dev.lake.cli.objects;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The progress line's text and how often it is drawn, on a clock the test moves. */
class ProgressLineTest {

  private static final long SECOND = 1_000_000_000L;
  private static final long MIB = 1024 * 1024;

  @Test
  void plainLinesComeEveryFiveSecondsAndTheLastAlways() {
    AtomicLong clock = new AtomicLong();
    StringWriter err = new StringWriter();
    ProgressLine progress = new ProgressLine(new PrintWriter(err), "run42.mcap", false, clock::get);
    clock.set(2 * SECOND);
    progress.onProgress(20 * MIB, 100 * MIB); // the first: drawn
    clock.set(4 * SECOND);
    progress.onProgress(40 * MIB, 100 * MIB); // 2 s later: not drawn
    clock.set(8 * SECOND);
    progress.onProgress(80 * MIB, 100 * MIB); // 6 s later: drawn
    clock.set(9 * SECOND);
    progress.onProgress(100 * MIB, 100 * MIB); // the last: drawn
    progress.onProgress(100 * MIB, 100 * MIB); // repeated: not drawn
    assertEquals("""
        run42.mcap: 20.0 MiB / 100.0 MiB (20%), 10.0 MiB/s, 0:08 left
        run42.mcap: 80.0 MiB / 100.0 MiB (80%), 10.0 MiB/s, 0:02 left
        run42.mcap: 100.0 MiB / 100.0 MiB (100%), 11.1 MiB/s, done in 0:09
        """, err.toString());
  }

  @Test
  void onATerminalOneLineIsRedrawnInPlace() {
    AtomicLong clock = new AtomicLong();
    StringWriter err = new StringWriter();
    ProgressLine progress = new ProgressLine(new PrintWriter(err), "f", true, clock::get);
    clock.set(SECOND);
    progress.onProgress(512, 1024);
    clock.set(2 * SECOND);
    progress.onProgress(1024, 1024);
    assertEquals("\rf: 512 B / 1.0 KiB (50%), 512 B/s, 0:01 left\u001b[K"
        + "\rf: 1.0 KiB / 1.0 KiB (100%), 512 B/s, done in 0:02\u001b[K\n", err.toString());
  }

  @Test
  void anEmptyFileIsDoneAtOnce() {
    StringWriter err = new StringWriter();
    new ProgressLine(new PrintWriter(err), "empty", false, () -> 0L).onProgress(0, 0);
    assertEquals("empty: 0 B / 0 B (100%), 0 B/s, done in 0:00\n", err.toString());
  }
}
