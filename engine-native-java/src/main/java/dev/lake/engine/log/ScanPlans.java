package dev.lake.engine.log;

import dev.lake.engine.ScanRequest;
import dev.lake.engine.Snapshot.ScanPlan;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Scan plans already made for a table, by version and request. A version's segments and their
 * footers never change, so its plan for a request is fixed once made; a repeated query (the
 * flood a training fleet sends) then skips testing every block's statistics against its filter,
 * about 60 us per query over TPC-H SF 1's lineitem. Bounded both in plans and in the scan units
 * they hold together (a full scan of a large table is many units, and its requests may differ in
 * columns only), least recently used out first; a plan larger than the whole bound is not kept.
 */
final class ScanPlans {
  static final int MAX_PLANS = 256;
  static final long MAX_UNITS = 1 << 16;

  private record Key(long version, ScanRequest request) {}

  private final int maxPlans;
  private final long maxUnits;
  private final LinkedHashMap<Key, ScanPlan> plans = new LinkedHashMap<>(16, 0.75f, true);
  private long units;

  ScanPlans() {
    this(MAX_PLANS, MAX_UNITS);
  }

  ScanPlans(int maxPlans, long maxUnits) {
    this.maxPlans = maxPlans;
    this.maxUnits = maxUnits;
  }

  /** The plan kept for {@code request} at {@code version}, or null. */
  synchronized ScanPlan get(long version, ScanRequest request) {
    return plans.get(new Key(version, request));
  }

  /** Keeps {@code plan}, made for {@code request} at {@code version}, if it fits the bound. */
  synchronized void put(long version, ScanRequest request, ScanPlan plan) {
    if (plan.units().size() > maxUnits) {
      return;
    }
    ScanPlan replaced = plans.put(new Key(version, request), plan);
    units += plan.units().size() - (replaced == null ? 0 : replaced.units().size());
    Iterator<ScanPlan> eldest = plans.values().iterator();
    while (plans.size() > maxPlans || units > maxUnits) {
      units -= eldest.next().units().size();
      eldest.remove();
    }
  }

  synchronized int size() {
    return plans.size();
  }

  /** Scan units held by the kept plans. */
  synchronized long units() {
    return units;
  }

  synchronized void clear() {
    plans.clear();
    units = 0;
  }
}
