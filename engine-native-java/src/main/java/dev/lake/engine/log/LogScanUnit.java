package dev.lake.engine.log;

import dev.lake.engine.ScanUnit;
import dev.lake.engine.TableLocation;
import dev.lake.engine.log.commit.LiveSegment;
import dev.lake.engine.log.segment.SegmentFooter;
import java.util.List;

/** One segment of a planned scan with the blocks that survived pruning. */
record LogScanUnit(
    TableLocation location,
    LiveSegment segment,
    SegmentFooter footer,
    List<Integer> blocks,
    long rowCount) implements ScanUnit {

  LogScanUnit {
    blocks = List.copyOf(blocks);
  }

  @Override
  public String describe() {
    return LogEngine.DATA + "/" + segment.ref().file() + " (" + blocks.size() + " of "
        + footer.blocks().size() + " blocks)";
  }
}
