package dev.lake.exec.op;

/**
 * Group ids by a {@code long} key, with open addressing over primitive arrays so the common
 * single integer/date/timestamp GROUP BY key costs no boxing or hashing of objects per row. Each
 * slot is two adjacent longs, the key and its id + 1 (0 marks an empty slot), so a probe touches
 * one cache line, which is what a table of a million groups costs.
 */
final class LongGroupTable {
  private long[] slots = new long[2 * 64];
  private int mask = 63;
  private int size;

  /** How many keys the table holds. */
  int size() {
    return size;
  }

  /** The id of {@code key}; if absent, records {@code candidate} as its id and returns it. */
  int getOrAdd(long key, int candidate) {
    long[] s = slots;
    int slot = hash(key) & mask;
    while (true) {
      long id = s[2 * slot + 1];
      if (id == 0) {
        break;
      }
      if (s[2 * slot] == key) {
        return (int) id - 1;
      }
      slot = (slot + 1) & mask;
    }
    s[2 * slot] = key;
    s[2 * slot + 1] = candidate + 1L;
    if (++size * 2 > mask + 1) {
      grow();
    }
    return candidate;
  }

  private static int hash(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }

  private void grow() {
    long[] old = slots;
    int capacity = (mask + 1) * 2;
    slots = new long[2 * capacity];
    mask = capacity - 1;
    for (int i = 0; i < old.length; i += 2) {
      if (old[i + 1] != 0) {
        int slot = hash(old[i]) & mask;
        while (slots[2 * slot + 1] != 0) {
          slot = (slot + 1) & mask;
        }
        slots[2 * slot] = old[i];
        slots[2 * slot + 1] = old[i + 1];
      }
    }
  }
}
