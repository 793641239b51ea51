package dev.lake.exec;

import java.math.BigDecimal;
import org.apache.arrow.memory.AllocationReservation;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;

/**
 * Heap memory an operator holds in Java arrays (a join's build rows and hash table, an
 * aggregate's groups), charged to the query's Arrow allocator as it grows, so it counts against
 * the same per-query and per-process limits as Arrow buffers. The charge is an Arrow reservation:
 * bookkeeping in the allocator tree, no memory is allocated. {@link #close()} returns all of it;
 * an allocator closed while a budget is open reports the bytes as a leak.
 *
 * <p>Thread-safe: the workers of a parallel build charge one budget.
 */
public final class HeapBudget implements AutoCloseable {
  private final BufferAllocator allocator;
  private final String what;
  private AllocationReservation reservation;
  private long charged;
  private long reserved;

  /** @param what the state charged, for the error message ("hash join build side") */
  public HeapBudget(BufferAllocator allocator, String what) {
    this.allocator = allocator;
    this.what = what;
  }

  /**
   * Counts {@code bytes} more against the budget.
   *
   * @throws OverBudgetException if the query's or the process's allocator has no room left;
   *     nothing of this call is charged then
   */
  public synchronized void charge(long bytes) {
    if (bytes <= 0) {
      return;
    }
    long needed = charged + bytes - reserved;
    if (needed > 0) {
      if (reservation == null) {
        reservation = allocator.newReservation();
      }
      // Arrow's Reservation.add reserves the next power of two of what it is asked for; that
      // is what is reserved now, and the excess covers the next charges.
      long grant = Long.highestOneBit(needed) == needed ? needed : Long.highestOneBit(needed) << 1;
      if (!reservation.add(needed)) {
        throw new OverBudgetException(what + " needs " + (charged + bytes) + " bytes of heap");
      }
      reserved += grant;
    }
    charged += bytes;
  }

  /** Bytes charged so far. */
  public synchronized long charged() {
    return charged;
  }

  @Override
  public synchronized void close() {
    if (reservation != null) {
      reservation.close();
      reservation = null;
    }
    charged = 0;
    reserved = 0;
  }

  /** The budget has no room for more heap; the message names what needed it and how much. */
  public static final class OverBudgetException extends OutOfMemoryException {
    private static final long serialVersionUID = 1L;

    OverBudgetException(String message) {
      super(message);
    }
  }

  /** About how many heap bytes {@code col} holds: its arrays and, for objects, the objects. */
  public static long bytes(Col col) {
    long n = col.size;
    return 32 + switch (col) {
      case Col.Longs c -> 9 * n;
      case Col.Doubles c -> 9 * n;
      case Col.Bools c -> 2 * n;
      case Col.Objects c -> {
        long total = 8 * n;
        for (Object v : c.values) {
          total += switch (v) {
            case null -> 0;
            case String s -> 48 + s.length();
            case BigDecimal d -> 64;
            default -> 32;
          };
        }
        yield total;
      }
    };
  }
}
