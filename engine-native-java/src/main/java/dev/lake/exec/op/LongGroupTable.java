package dev.lake.exec.op;

/**
 * Group ids by a {@code long} key, with open addressing over primitive arrays so the common
 * single integer/date/timestamp GROUP BY key costs no boxing or hashing of objects per row.
 */
final class LongGroupTable {
  private long[] keys = new long[64];
  private int[] ids = new int[64];
  private boolean[] used = new boolean[64];
  private int size;

  /** How many keys the table holds. */
  int size() {
    return size;
  }

  /** The id of {@code key}; if absent, records {@code candidate} as its id and returns it. */
  int getOrAdd(long key, int candidate) {
    int mask = keys.length - 1;
    int slot = hash(key) & mask;
    while (used[slot]) {
      if (keys[slot] == key) {
        return ids[slot];
      }
      slot = (slot + 1) & mask;
    }
    used[slot] = true;
    keys[slot] = key;
    ids[slot] = candidate;
    if (++size * 2 > keys.length) {
      grow();
    }
    return candidate;
  }

  private static int hash(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }

  private void grow() {
    long[] oldKeys = keys;
    int[] oldIds = ids;
    boolean[] oldUsed = used;
    keys = new long[oldKeys.length * 2];
    ids = new int[keys.length];
    used = new boolean[keys.length];
    int mask = keys.length - 1;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldUsed[i]) {
        int slot = hash(oldKeys[i]) & mask;
        while (used[slot]) {
          slot = (slot + 1) & mask;
        }
        used[slot] = true;
        keys[slot] = oldKeys[i];
        ids[slot] = oldIds[i];
      }
    }
  }
}
