package dev.lake.exec.op;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import dev.lake.exec.Vectors;
import dev.lake.exec.expr.Expr;
import dev.lake.exec.expr.Kernel;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * Assigns every live row of a batch a dense group id by its GROUP BY key values without boxing
 * a key per row. Each key column has its own dictionary of dense ids (NULL is one value like any
 * other); a string column read straight from its Arrow buffers is hashed and compared by its
 * UTF-8 bytes. Several keys are combined pairwise through {@link LongGroupTable}s of
 * {@code (id so far << 32 | next key's id)}, so the last table's ids are the group ids.
 *
 * <p>When the keys are input columns, two memos in front of that exact path give most rows their
 * group with one lookup: {@link NarrowKeyTable} for fixed-width short strings, then
 * {@link WordKeyCache} for tuples of word-sized values. Both ask the exact path about any row
 * they do not know, so ids and their first-seen order do not depend on which path ran.
 */
final class GroupKeys {
  private final KeyIds[] keys;
  /** Ids below this combine through a direct array ({@code id + 1} per pair, 0 unknown). */
  private static final int SMALL = 64;
  private final LongGroupTable[] combine;
  private final int[][] combineSmall;
  private final List<List<Object>> groupValues = new ArrayList<>();
  private int groupCount;
  /** Each key's input column when all keys are columns the row-wise paths read, else null. */
  private final int[] keyColumns;
  private final NarrowKeyTable narrowKeys;
  private final WordKeyCache wordKeys;
  /** One row's key ids, for {@link #exactGroup}. */
  private final int[][] rowIds;

  GroupKeys(List<Expr> keyExprs) {
    keys = new KeyIds[keyExprs.size()];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = KeyIds.of(keyExprs.get(k));
      groupValues.add(new ArrayList<>());
    }
    combine = new LongGroupTable[Math.max(0, keys.length - 1)];
    combineSmall = new int[combine.length][];
    for (int k = 0; k < combine.length; k++) {
      combine[k] = new LongGroupTable();
      combineSmall[k] = new int[SMALL * SMALL];
    }
    groupCount = keys.length == 0 ? 1 : 0;
    keyColumns = keyColumns(keyExprs);
    boolean allStrings = keyExprs.stream().allMatch(e -> e.type().kind() == SqlType.Kind.UTF8);
    narrowKeys = keyColumns != null && allStrings ? new NarrowKeyTable(keyColumns) : null;
    wordKeys = keyColumns != null && keys.length >= 2 ? new WordKeyCache(keyColumns) : null;
    rowIds = new int[keys.length][1];
  }

  /**
   * The input column of each key when every key is a column of a type the row-wise paths read
   * (strings, 32-bit integers, dates), else null.
   */
  private static int[] keyColumns(List<Expr> keyExprs) {
    if (keyExprs.isEmpty()) {
      return null;
    }
    int[] columns = new int[keyExprs.size()];
    for (int k = 0; k < columns.length; k++) {
      if (!(keyExprs.get(k) instanceof Expr.Column c)) {
        return null;
      }
      switch (c.type().kind()) {
        case UTF8, INT32, DATE -> columns[k] = c.index();
        default -> {
          return null;
        }
      }
    }
    return columns;
  }

  int groupCount() {
    return groupCount;
  }

  /** Key {@code k}'s value of every group, in group id order (boxed as {@link Col#get} returns). */
  List<Object> values(int k) {
    return groupValues.get(k);
  }

  /** Fills {@code groups[0..batch.count())} with the group ids of the live rows. */
  void assign(Batch batch, int[] groups) {
    int n = batch.count();
    if (keys.length == 0) {
      return;
    }
    if (narrowKeys != null && narrowKeys.assign(batch, groups, this::exactGroup)) {
      return;
    }
    if (keys.length == 1) {
      keys[0].assign(batch, groups);
      KeyIds key = keys[0];
      List<Object> out = groupValues.get(0);
      for (int id = groupCount; id < key.values.size(); id++) {
        out.add(key.values.get(id));
      }
      groupCount = key.values.size();
      return;
    }
    if (wordKeys != null && wordKeys.accepts(batch)) {
      wordKeys.assign(batch, groups, this::exactGroup);
      return;
    }
    int[][] ids = new int[keys.length][];
    for (int k = 0; k < keys.length; k++) {
      ids[k] = k == 0 ? groups : new int[n];
      keys[k].assign(batch, ids[k]);
    }
    for (int i = 0; i < n; i++) {
      groups[i] = combine(ids, i);
    }
  }

  /**
   * The group of the {@code i}-th live row, its keys looked up one at a time: the exact path
   * behind {@link NarrowKeyTable} and {@link WordKeyCache}.
   */
  private int exactGroup(Batch batch, int i) {
    int row = batch.row(i);
    for (int k = 0; k < keys.length; k++) {
      FieldVector vector = batch.root().getVector(keyColumns[k]);
      rowIds[k][0] = switch (keys[k]) {
        case StringIds s -> s.idAt((VarCharVector) vector, row);
        case LongIds l -> l.idAt(vector, row);
        default -> throw new IllegalStateException("no row lookup for " + keys[k].getClass().getSimpleName());
      };
    }
    return combine(rowIds, 0);
  }

  /** The group of the key ids {@code ids[k][i]}, recording the group's values if it is new. */
  private int combine(int[][] ids, int i) {
    int g = ids[0][i];
    for (int k = 1; k < keys.length; k++) {
      int id = ids[k][i];
      int[] small = combineSmall[k - 1];
      if ((g | id) < SMALL) {
        // Few distinct values so far: a direct table in front of the hash table.
        int slot = g * SMALL + id;
        int cached = small[slot];
        if (cached != 0) {
          g = cached - 1;
          continue;
        }
        g = combine[k - 1].getOrAdd(((long) g << 32) | id, combine[k - 1].size());
        small[slot] = g + 1;
      } else {
        LongGroupTable table = combine[k - 1];
        g = table.getOrAdd(((long) g << 32) | (id & 0xFFFFFFFFL), table.size());
      }
    }
    if (g == groupCount) {
      groupCount++;
      for (int k = 0; k < keys.length; k++) {
        groupValues.get(k).add(keys[k].values.get(ids[k][i]));
      }
    }
    return g;
  }

  /** Dense ids of one key column's distinct values; {@code values.get(id)} is the value. */
  abstract static sealed class KeyIds permits LongIds, DoubleIds, BoolIds, StringIds, ObjectIds {
    final List<Object> values = new ArrayList<>();
    int nullId = -1;

    abstract void assign(Batch batch, int[] ids);

    int nullId() {
      if (nullId < 0) {
        nullId = values.size();
        values.add(null);
      }
      return nullId;
    }

    static KeyIds of(Expr key) {
      SqlType type = key.type();
      if (type.isLongBacked()) {
        return new LongIds(Kernel.compile(key));
      }
      return switch (type.kind()) {
        case FLOAT32, FLOAT64 -> new DoubleIds(Kernel.compile(key));
        case BOOL -> new BoolIds(Kernel.compile(key));
        case UTF8 -> new StringIds(key instanceof Expr.Column c ? c.index() : -1, Kernel.compile(key));
        default -> new ObjectIds(Kernel.compile(key));
      };
    }
  }

  static final class LongIds extends KeyIds {
    private final Kernel kernel;
    private final LongGroupTable table = new LongGroupTable();

    LongIds(Kernel kernel) {
      this.kernel = kernel;
    }

    @Override
    void assign(Batch batch, int[] ids) {
      Col.Longs c = (Col.Longs) kernel.eval(batch);
      for (int i = 0; i < batch.count(); i++) {
        ids[i] = c.nulls[i] ? nullId() : id(c.values[i]);
      }
    }

    /** The id of row {@code row} of a 32-bit integer or date column, as {@link Vectors#read} widens it. */
    int idAt(FieldVector vector, int row) {
      return vector.isNull(row) ? nullId() : id(vector.getDataBuffer().getInt((long) row * Integer.BYTES));
    }

    private int id(long value) {
      int candidate = values.size();
      int id = table.getOrAdd(value, candidate);
      if (id == candidate) {
        values.add(value);
      }
      return id;
    }
  }

  /** Doubles by bits, with -0.0 as 0.0 and one NaN, as {@link Double#equals} after normalising. */
  static final class DoubleIds extends KeyIds {
    private final Kernel kernel;
    private final LongGroupTable table = new LongGroupTable();

    DoubleIds(Kernel kernel) {
      this.kernel = kernel;
    }

    @Override
    void assign(Batch batch, int[] ids) {
      Col.Doubles c = (Col.Doubles) kernel.eval(batch);
      for (int i = 0; i < batch.count(); i++) {
        if (c.nulls[i]) {
          ids[i] = nullId();
        } else {
          double v = c.values[i] == 0.0 ? 0.0 : c.values[i];
          int candidate = values.size();
          int id = table.getOrAdd(Double.doubleToLongBits(v), candidate);
          if (id == candidate) {
            values.add(c.values[i]);
          }
          ids[i] = id;
        }
      }
    }
  }

  static final class BoolIds extends KeyIds {
    private final Kernel kernel;
    private int falseId = -1;
    private int trueId = -1;

    BoolIds(Kernel kernel) {
      this.kernel = kernel;
    }

    @Override
    void assign(Batch batch, int[] ids) {
      Col.Bools c = (Col.Bools) kernel.eval(batch);
      for (int i = 0; i < batch.count(); i++) {
        if (c.nulls[i]) {
          ids[i] = nullId();
        } else if (c.values[i]) {
          if (trueId < 0) {
            trueId = values.size();
            values.add(true);
          }
          ids[i] = trueId;
        } else {
          if (falseId < 0) {
            falseId = values.size();
            values.add(false);
          }
          ids[i] = falseId;
        }
      }
    }
  }

  /** Decimals and other values, boxed and normalised (the general path). */
  static final class ObjectIds extends KeyIds {
    private final Kernel kernel;
    private final Map<Object, Integer> map = new HashMap<>();

    ObjectIds(Kernel kernel) {
      this.kernel = kernel;
    }

    @Override
    void assign(Batch batch, int[] ids) {
      Col c = kernel.eval(batch);
      for (int i = 0; i < batch.count(); i++) {
        Object v = c.get(i);
        if (v == null) {
          ids[i] = nullId();
          continue;
        }
        Integer id = map.get(HashAggregateOperator.normaliseKey(v));
        if (id == null) {
          id = values.size();
          map.put(HashAggregateOperator.normaliseKey(v), id);
          values.add(v);
        }
        ids[i] = id;
      }
    }
  }

  /**
   * Strings by their UTF-8 bytes: read from the VarChar vector's buffers when the key is a
   * column of the input, else encoded from the computed column. A string of up to 7 bytes is
   * keyed by its bytes and length packed in a long; longer ones by open addressing over the ids,
   * their bytes in one arena.
   */
  static final class StringIds extends KeyIds {
    private static final int SHORT_MAX = 7;
    private static final long[] SHORT_MASKS = new long[SHORT_MAX + 1];

    static {
      for (int length = 1; length <= SHORT_MAX; length++) {
        SHORT_MASKS[length] = (1L << (length * 8)) - 1;
      }
    }
    private static final ValueLayout.OfLong LITTLE_ENDIAN_LONG =
        ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private final int column;
    private final Kernel kernel;
    private byte[] arena = new byte[256];
    private int arenaSize;
    private int[] starts = new int[16];
    private int[] ends = new int[16];
    private int[] hashes = new int[16];
    private int[] slots = new int[64]; // id + 1, 0 for empty
    private int size;
    private final LongGroupTable shortIds = new LongGroupTable();
    /**
     * A direct-mapped cache of recent short keys in front of {@link #shortIds}: low-cardinality
     * keys (flags, codes) are found with one multiply and one compare. An empty line holds -1,
     * which no packed key equals (its top byte is a length of at most 7).
     */
    private static final int CACHE_BITS = 8;
    private final long[] cachedKeys = new long[1 << CACHE_BITS];
    private final int[] cachedIds = new int[1 << CACHE_BITS];

    StringIds(int column, Kernel kernel) {
      this.column = column;
      this.kernel = kernel;
      Arrays.fill(cachedKeys, -1);
    }

    @Override
    void assign(Batch batch, int[] ids) {
      int n = batch.count();
      FieldVector vector = column >= 0 ? batch.root().getVector(column) : null;
      if (vector instanceof VarCharVector v) {
        int[] sel = batch.selection();
        ArrowBuf offsetBuf = v.getOffsetBuffer();
        ArrowBuf dataBuf = v.getDataBuffer();
        MemorySegment offsets = Vectors.segment(offsetBuf);
        MemorySegment data = Vectors.segment(dataBuf);
        boolean noNulls = !Vectors.hasNulls(v);
        long wordEnd = data.byteSize() - 8;
        for (int i = 0; i < n; i++) {
          int r = sel == null ? i : sel[i];
          if (!noNulls && v.isNull(r)) {
            ids[i] = nullId();
            continue;
          }
          int start = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r);
          int length = offsets.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, r + 1) - start;
          if (length <= SHORT_MAX && start <= wordEnd) {
            // The common case kept small enough to inline: one word read, one cache probe.
            long packed = (data.get(LITTLE_ENDIAN_LONG, start) & SHORT_MASKS[length]) | ((long) length << 56);
            int line = (int) ((packed * 0x9E3779B97F4A7C15L) >>> (64 - CACHE_BITS));
            ids[i] = cachedKeys[line] == packed ? cachedIds[line] : shortId(packed, line, data, start, length);
          } else {
            ids[i] = find(data, start, length);
          }
        }
        return;
      }
      Col c = kernel.eval(batch);
      for (int i = 0; i < n; i++) {
        Object s = c.get(i);
        if (s == null) {
          ids[i] = nullId();
        } else {
          byte[] bytes = ((String) s).getBytes(StandardCharsets.UTF_8);
          ids[i] = find(MemorySegment.ofArray(bytes), 0, bytes.length);
        }
      }
    }

    /** The id of row {@code row} of a string column. */
    int idAt(VarCharVector vector, int row) {
      if (vector.isNull(row)) {
        return nullId();
      }
      int start = vector.getOffsetBuffer().getInt((long) row * Integer.BYTES);
      int end = vector.getOffsetBuffer().getInt((long) (row + 1) * Integer.BYTES);
      return find(Vectors.segment(vector.getDataBuffer()), start, end - start);
    }

    private int find(MemorySegment data, long start, int length) {
      if (length > SHORT_MAX) {
        return findLong(data, start, length);
      }
      // Short strings (flags, codes, names of a few letters) are their bytes in a long.
      long packed = (long) length << 56;
      if (start + 8 <= data.byteSize()) {
        packed |= data.get(LITTLE_ENDIAN_LONG, start) & SHORT_MASKS[length];
      } else {
        for (int b = 0; b < length; b++) {
          packed |= (data.get(ValueLayout.JAVA_BYTE, start + b) & 0xFFL) << (b * 8);
        }
      }
      int line = (int) ((packed * 0x9E3779B97F4A7C15L) >>> (64 - CACHE_BITS));
      return cachedKeys[line] == packed ? cachedIds[line] : shortId(packed, line, data, start, length);
    }

    /** The id of a short key the cache does not hold; caches it. */
    private int shortId(long packed, int line, MemorySegment data, long start, int length) {
      int candidate = values.size();
      int id = shortIds.getOrAdd(packed, candidate);
      if (id == candidate) {
        byte[] bytes = new byte[length];
        MemorySegment.copy(data, ValueLayout.JAVA_BYTE, start, bytes, 0, length);
        values.add(new String(bytes, StandardCharsets.UTF_8));
      }
      cachedKeys[line] = packed;
      cachedIds[line] = id;
      return id;
    }

    private int findLong(MemorySegment data, long start, int length) {
      int h = hash(data, start, length);
      int mask = slots.length - 1;
      int slot = h & mask;
      while (true) {
        int s = slots[slot];
        if (s == 0) {
          break;
        }
        int id = s - 1;
        if (hashes[id] == h && sameBytes(id, data, start, length)) {
          return id;
        }
        slot = (slot + 1) & mask;
      }
      int id = values.size();
      byte[] bytes = new byte[length];
      MemorySegment.copy(data, ValueLayout.JAVA_BYTE, start, bytes, 0, length);
      values.add(new String(bytes, StandardCharsets.UTF_8));
      add(id, h, bytes, slot);
      return id;
    }

    private boolean sameBytes(int id, MemorySegment data, long start, int length) {
      int from = starts[id];
      return ends[id] - from == length && MemorySegment.mismatch(
          data, start, start + length, MemorySegment.ofArray(arena), from, from + length) < 0;
    }

    /** A hash of the bytes, a word at a time. */
    private static int hash(MemorySegment data, long start, int length) {
      long h = 0x9E3779B97F4A7C15L * (length + 1);
      int b = 0;
      for (; b + 8 <= length; b += 8) {
        h = (h ^ data.get(LITTLE_ENDIAN_LONG, start + b)) * 0xBF58476D1CE4E5B9L;
        h ^= h >>> 31;
      }
      long tail = 0;
      for (; b < length; b++) {
        tail = (tail << 8) | (data.get(ValueLayout.JAVA_BYTE, start + b) & 0xFFL);
      }
      h = (h ^ tail) * 0x94D049BB133111EBL;
      h ^= h >>> 29;
      return (int) (h ^ (h >>> 32));
    }

    private void add(int id, int h, byte[] bytes, int slot) {
      if (id >= starts.length) {
        int capacity = Math.max(starts.length * 2, id + 1);
        starts = Arrays.copyOf(starts, capacity);
        ends = Arrays.copyOf(ends, capacity);
        hashes = Arrays.copyOf(hashes, capacity);
      }
      if (arenaSize + bytes.length > arena.length) {
        arena = Arrays.copyOf(arena, Math.max(arena.length * 2, arenaSize + bytes.length));
      }
      System.arraycopy(bytes, 0, arena, arenaSize, bytes.length);
      starts[id] = arenaSize;
      ends[id] = arenaSize + bytes.length;
      arenaSize += bytes.length;
      hashes[id] = h;
      slots[slot] = id + 1;
      if (++size * 2 > slots.length) {
        rehash();
      }
    }

    private void rehash() {
      int[] old = slots;
      slots = new int[old.length * 2];
      int mask = slots.length - 1;
      for (int s : old) {
        if (s != 0) {
          int slot = hashes[s - 1] & mask;
          while (slots[slot] != 0) {
            slot = (slot + 1) & mask;
          }
          slots[slot] = s;
        }
      }
    }
  }
}
