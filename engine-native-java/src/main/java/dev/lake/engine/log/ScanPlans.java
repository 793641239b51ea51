package dev.lake.engine.log;

import dev.lake.engine.ScanRequest;
import dev.lake.engine.Snapshot.ScanPlan;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Scan plans already made for a table, by version and request. A version's segments and their
 * footers never change, so its plan for a request is fixed once made; a repeated query (the
 * flood a training fleet sends) then skips testing every block's statistics against its filter,
 * about 60 us per query over TPC-H SF 1's lineitem. Bounded, least recently used out first.
 */
final class ScanPlans {
  static final int CAPACITY = 256;

  private record Key(long version, ScanRequest request) {}

  private final Map<Key, ScanPlan> plans = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Key, ScanPlan> eldest) {
      return size() > CAPACITY;
    }
  };

  /** The plan kept for {@code request} at {@code version}, or null. */
  synchronized ScanPlan get(long version, ScanRequest request) {
    return plans.get(new Key(version, request));
  }

  /** Keeps {@code plan}, made for {@code request} at {@code version}. */
  synchronized void put(long version, ScanRequest request, ScanPlan plan) {
    plans.put(new Key(version, request), plan);
  }

  synchronized int size() {
    return plans.size();
  }

  synchronized void clear() {
    plans.clear();
  }
}
