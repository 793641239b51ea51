package dev.lake.engine.log.segment;

import dev.lake.engine.AllValidBitmap;
import dev.lake.engine.log.store.ObjectStore;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Yields one batch per selected block, one {@link ArrowBuf} per run of requested chunks that are
 * adjacent in the file but for alignment padding (the whole block when every column is
 * requested); the vectors get slices
 * of it: no per-row work. Where the store maps files and the caller passes the table's
 * {@link SegmentMappings}, the run wraps the segment's mapped bytes (no copy, and after the first
 * scan no page faults either: the mapping is kept for the next readers); otherwise it is read
 * with one positional read into a buffer of the caller's allocator. Either way each chunk's
 * CRC32C is checked before its batch is returned, so damaged bytes never reach the caller; a
 * chunk read through a cached mapping is checked once per mapping ({@link MappedFile}).
 */
final class BlockReader extends ArrowReader {

  private final ObjectStore store;
  private final String key;
  private final SegmentFooter footer;
  private final List<Integer> blocks;
  private final List<Integer> projection;
  /** Per column of the file, its kind where projected (null for nested or unprojected columns). */
  private final ColumnKind[] kinds;
  /** The projected columns once each, in file order (a block writes its chunks column by column). */
  private final int[] wanted;
  private final SegmentFile.CorruptionHandler onCorrupt;
  private final SegmentMappings mappings;
  /** The open file when blocks are copied; null when they are read through {@link #mapped}. */
  private ObjectStore.ReadableObject channel;
  private MappedFile mapped;
  // Per-batch scratch, reused: a batch costs a few microseconds, of which allocation was a share.
  private final ArrowBuf[] runOf;
  private final long[] startInRun;
  private final List<ArrowBuf> runs = new ArrayList<>(2);
  /** Buffers decoded for this batch, released once the vectors retained them. */
  private final List<ArrowBuf> decoded = new ArrayList<>();
  private final List<ArrowFieldNode> nodes = new ArrayList<>();
  private final List<ArrowBuf> buffers = new ArrayList<>();
  private int next;
  private long bytesRead;
  private ArrowBuf allValid;
  /** Whether every projected column is flat (no nested Arrow tree to load). */
  private final boolean flat;

  BlockReader(
      ObjectStore store,
      String key,
      SegmentFooter footer,
      List<Integer> blocks,
      List<Integer> projection,
      BufferAllocator allocator,
      SegmentMappings mappings,
      SegmentFile.CorruptionHandler onCorrupt) {
    super(allocator);
    this.store = store;
    this.key = key;
    this.footer = footer;
    this.blocks = List.copyOf(blocks);
    this.projection = List.copyOf(projection);
    List<Field> fields = footer.schema().getFields();
    this.kinds = new ColumnKind[fields.size()];
    boolean allFlat = true;
    for (int c : this.projection) {
      kinds[c] = ColumnKind.of(fields.get(c));
      allFlat &= kinds[c] != null;
    }
    this.flat = allFlat;
    this.wanted = this.projection.stream().mapToInt(Integer::intValue).distinct().sorted().toArray();
    this.runOf = new ArrowBuf[fields.size()];
    this.startInRun = new long[fields.size()];
    this.mappings = mappings;
    this.onCorrupt = onCorrupt;
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    prepareLoadNextBatch();
    if (next >= blocks.size()) {
      return false;
    }
    int blockIndex = blocks.get(next++);
    BlockMeta block = footer.blocks().get(blockIndex);
    open();
    nodes.clear();
    buffers.clear();
    try {
      readRuns(block, blockIndex);
      for (int column : projection) {
        ChunkMeta meta = block.columns().get(column);
        long offset = startInRun[column];
        int first = buffers.size();
        if (meta.encoding() != null) {
          decode(block, blockIndex, column, meta);
          if (kinds[column].variableWidth()) {
            checkOffsets(buffers, block.rows(), blockIndex, column);
          }
          nodes.add(new ArrowFieldNode(block.rows(), meta.stats().nullCount()));
          continue;
        }
        for (long len : meta.bufferLengths()) {
          buffers.add(runOf[column].slice(offset, len));
          offset += len;
        }
        if (kinds[column] != null && meta.stats().nullCount() == 0 && block.rows() > 0
            && block.rows() <= AllValidBitmap.MAX_ROWS) {
          // Checked against the stored bitmap with the chunk (readRuns); the shared one tells
          // consumers the column is NULL-free without their reading it.
          buffers.set(first, allValid(block.rows()));
        }
        if (kinds[column] == null) {
          String problem = NestedLayout.checkOffsets(footer.schema().getFields().get(column),
              buffers.subList(first, buffers.size()), meta.nodes());
          if (problem != null) {
            throw onCorrupt.corrupt(blockIndex, columnName(column), problem, null);
          }
          meta.nodes().forEach(n -> nodes.add(new ArrowFieldNode(n.length(), n.nulls())));
          continue;
        }
        if (kinds[column].variableWidth()) {
          checkOffsets(buffers, block.rows(), blockIndex, column);
        }
        nodes.add(new ArrowFieldNode(block.rows(), meta.stats().nullCount()));
      }
      if (flat) {
        // Straight into the vectors, each retaining its buffers: Arrow's loader would also build
        // a record batch retaining every slice and a type layout per column, about 4 us a block.
        VectorSchemaRoot root = getVectorSchemaRoot();
        for (int i = 0, first = 0; i < nodes.size(); i++) {
          FieldVector vector = root.getVector(i);
          int count = kinds[projection.get(i)].bufferCount();
          vector.loadFieldBuffers(nodes.get(i), buffers.subList(first, first + count));
          first += count;
        }
        root.setRowCount(block.rows());
      } else {
        // The batch retains the slices; the vectors retain them again on load.
        loadRecordBatch(new ArrowRecordBatch(block.rows(), nodes, buffers));
      }
      return true;
    } finally {
      runs.forEach(ArrowBuf::close);
      runs.clear();
      decoded.forEach(ArrowBuf::close);
      decoded.clear();
    }
  }

  /**
   * Decodes an encoded chunk (checked against its CRC32C by {@link #readRuns}) into buffers of
   * the caller's allocator, added to {@link #buffers}; what it allocates goes to
   * {@link #decoded}, released once the vectors retained it.
   */
  private void decode(BlockMeta block, int blockIndex, int column, ChunkMeta meta) {
    int rows = block.rows();
    long nulls = meta.stats().nullCount();
    ArrowBuf shared = nulls == 0 && rows > 0 && rows <= AllValidBitmap.MAX_ROWS ? allValid(rows) : null;
    List<ArrowBuf> out;
    try {
      out = ChunkCodec.decode(kinds[column], meta, rows,
          runOf[column].slice(startInRun[column], meta.length()), shared, allocator, decoded);
    } catch (SegmentFormatException e) {
      throw onCorrupt.corrupt(blockIndex, columnName(column), e.getMessage(), e);
    }
    if (nulls > 0 && Bits.zeros(out.getFirst().nioBuffer(0, (int) out.getFirst().capacity()), rows) != nulls) {
      throw onCorrupt.corrupt(blockIndex, columnName(column), "has another number of NULLs than its statistics say", null);
    }
    buffers.addAll(out);
  }

  /**
   * Reads the requested chunks of a block, each run of chunks adjacent in the file (all of them
   * when every column is requested) with one positional read into one buffer, and checks each
   * chunk's CRC32C. Fills, per column, its run and its start within the run, and {@link #runs}.
   * Chunks are taken in column order, the order blocks are written in; were a footer to place
   * them otherwise, they would only be read in more runs.
   */
  private void readRuns(BlockMeta block, int blockIndex) {
    List<ChunkMeta> chunks = block.columns();
    int i = 0;
    while (i < wanted.length) {
      long first = chunks.get(wanted[i]).offset();
      long end = first + chunks.get(wanted[i]).length();
      // The run starts with the padding before its first chunk, so that padding is checked too.
      long before = precedingEnd(blockIndex, wanted[i]);
      long start = before <= first && first - before < SegmentWriter.CHUNK_ALIGNMENT ? before : first;
      int j = i;
      // Chunks with only alignment padding between them are read together, padding included.
      while (j + 1 < wanted.length && chunks.get(wanted[j + 1]).offset() >= end
          && chunks.get(wanted[j + 1]).offset() - end < SegmentWriter.CHUNK_ALIGNMENT) {
        j++;
        end = chunks.get(wanted[j]).offset() + chunks.get(wanted[j]).length();
      }
      if (end - start > Integer.MAX_VALUE) {
        // Chunks are each below 2 GiB (checked with the footer); their sum need not be.
        end = first + chunks.get(wanted[i]).length();
        j = i;
      }
      ArrowBuf run;
      if (mapped != null) {
        if (end > mapped.size()) {
          throw onCorrupt.corrupt(blockIndex, columnName(wanted[i]), "lies past the end of the file ("
              + mapped.size() + " bytes)", null);
        }
        run = mapped.wrap(allocator, start, end - start);
        runs.add(run);
      } else {
        run = allocator.buffer(end - start);
        runs.add(run);
        try {
          channel.read(start, run.nioBuffer(0, (int) (end - start)));
        } catch (IOException e) {
          throw onCorrupt.corrupt(blockIndex, columnName(wanted[i]), "cannot be read", e);
        }
      }
      run.writerIndex(end - start);
      bytesRead += end - start;
      long previousEnd = start;
      for (int k = i; k <= j; k++) {
        int column = wanted[k];
        ChunkMeta meta = chunks.get(column);
        if (mapped == null || !mapped.verified(meta.offset())) {
          // The padding read with the chunk is zeros, so no damaged byte read goes unnoticed.
          for (long b = previousEnd; b < meta.offset(); b++) {
            if (run.getByte(b - start) != 0) {
              throw onCorrupt.corrupt(blockIndex, columnName(column), "has damaged alignment padding before it", null);
            }
          }
          CRC32C crc = new CRC32C();
          crc.update(run.nioBuffer(meta.offset() - start, (int) meta.length()));
          if ((int) crc.getValue() != meta.crc32c()) {
            throw onCorrupt.corrupt(blockIndex, columnName(column), "fails its checksum", null);
          }
          if (kinds[column] != null && meta.encoding() == null && meta.stats().nullCount() == 0 && block.rows() > 0
              && Bits.zeros(run.nioBuffer(meta.offset() - start, (int) meta.bufferLengths().get(0).longValue()), block.rows()) != 0) {
            // Readers then hand out an all-valid bitmap for it (loadNextBatch): the two must agree.
            throw onCorrupt.corrupt(blockIndex, columnName(column), "has NULLs its statistics say it has not", null);
          }
          if (mapped != null) {
            mapped.markVerified(meta.offset());
          }
        }
        runOf[column] = run;
        startInRun[column] = meta.offset() - start;
        previousEnd = meta.offset() + meta.length();
      }
      i = j + 1;
    }
  }

  /**
   * The shared all-valid bitmap for {@code rows} rows: a slice of one buffer wrapped once per
   * reader (a wrap per column per batch costs an allocation manager and a ledger each).
   */
  private ArrowBuf allValid(int rows) {
    if (allValid == null || allValid.capacity() < (rows + 7) / 8) {
      if (allValid != null) {
        allValid.close();
      }
      int most = 0;
      for (int b : blocks) {
        most = Math.max(most, footer.blocks().get(b).rows());
      }
      allValid = AllValidBitmap.wrap(allocator, Math.min(Math.max(most, rows), AllValidBitmap.MAX_ROWS));
    }
    return allValid.slice(0, (rows + 7) / 8);
  }

  /**
   * Where the file's bytes before the chunk of {@code column} in {@code block} end: the chunk
   * written before it (the previous column's, or the previous block's last), or the magic.
   */
  private long precedingEnd(int block, int column) {
    if (column > 0) {
      ChunkMeta previous = footer.blocks().get(block).columns().get(column - 1);
      return previous.offset() + previous.length();
    }
    if (block > 0) {
      List<ChunkMeta> previous = footer.blocks().get(block - 1).columns();
      return previous.getLast().offset() + previous.getLast().length();
    }
    return SegmentFile.MAGIC.length;
  }

  private void checkOffsets(List<ArrowBuf> buffers, int rows, int block, int column) {
    ArrowBuf offsets = buffers.get(buffers.size() - 2);
    ArrowBuf data = buffers.get(buffers.size() - 1);
    if (offsets.getInt(0) != 0 || offsets.getInt((long) rows * 4) != data.capacity()) {
      throw onCorrupt.corrupt(block, columnName(column), "has inconsistent offsets", null);
    }
  }

  private String columnName(int column) {
    return footer.schema().getFields().get(column).getName();
  }

  /**
   * Before the first batch: takes the segment's cached mapping, or opens the file (mapping it
   * into the cache where the store can). A cached mapping is only used while the file is still
   * there at the size mapped, so a missing file reads as missing (an expired version) as without
   * the cache; that check is one metadata lookup, where opening, sizing and closing the file
   * were three system calls per reader.
   */
  private void open() {
    if (mapped != null || channel != null) {
      return;
    }
    try {
      if (mappings != null) {
        mapped = mappings.acquireIfMapped(key);
        if (mapped != null) {
          OptionalLong size = store.size(key);
          if (size.isEmpty()) {
            throw new NoSuchFileException(store.describe(key));
          }
          checkMappedSize(size.getAsLong());
          return;
        }
      }
      channel = store.open(key);
      if (mappings != null) {
        mapped = mappings.acquire(key, channel);
        if (mapped != null) {
          checkMappedSize(channel.size());
          // The mapping outlives the file handle.
          ObjectStore.ReadableObject opened = channel;
          channel = null;
          opened.close();
        }
      }
    } catch (NoSuchFileException e) {
      throw onCorrupt.corrupt(-1, null, "is missing", e);
    } catch (IOException e) {
      throw onCorrupt.corrupt(-1, null, "cannot be opened", e);
    }
  }

  private void checkMappedSize(long size) {
    if (mapped.size() != size) {
      throw onCorrupt.corrupt(-1, null, "changed size from " + mapped.size() + " to " + size + " bytes while mapped", null);
    }
  }

  @Override
  public long bytesRead() {
    return bytesRead;
  }

  @Override
  protected void closeReadSource() throws IOException {
    if (allValid != null) {
      // Vectors still holding slices of it keep it until they are closed.
      allValid.close();
      allValid = null;
    }
    if (mapped != null) {
      // Vectors still holding buffers of the mapping keep it alive until they are closed.
      mapped.release();
      mapped = null;
    }
    if (channel != null) {
      channel.close();
      channel = null;
    }
  }

  @Override
  protected Schema readSchema() {
    List<Field> fields = new ArrayList<>(projection.size());
    for (int column : projection) {
      fields.add(footer.schema().getFields().get(column));
    }
    return new Schema(fields);
  }
}
