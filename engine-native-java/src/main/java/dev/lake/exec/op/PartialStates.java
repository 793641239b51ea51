package dev.lake.exec.op;

import dev.lake.exec.HeapBudget;
import dev.lake.exec.fn.GroupState;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The partial states of registry aggregates in one execution of a parallel aggregation: each
 * partial aggregate registers its finished states here and emits, per group, a BIGINT handle
 * ({@code id << 32 | group}); the final aggregate looks the states up by handle and merges them
 * ({@link GroupState#merge}). The states' heap stays charged to the query until {@link #close}.
 * Thread-safe: the workers of a stage register and read at once.
 */
public final class PartialStates implements AutoCloseable {
  private final List<GroupState> states = new ArrayList<>();
  private final HeapBudget heap;

  public PartialStates(BufferAllocator allocator) {
    this.heap = new HeapBudget(allocator, "partial aggregate states");
  }

  /** Keeps {@code state} and answers its id (what handles carry in their high 32 bits). */
  synchronized int register(GroupState state) {
    heap.charge(state.heapBytes());
    states.add(state);
    return states.size() - 1;
  }

  synchronized GroupState get(int id) {
    return states.get(id);
  }

  static long handle(int id, int group) {
    return (long) id << 32 | group;
  }

  /** Releases the states and their heap charge; idempotent. */
  @Override
  public synchronized void close() {
    states.clear();
    heap.close();
  }
}
