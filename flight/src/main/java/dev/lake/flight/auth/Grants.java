package dev.lake.flight.auth;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The principal the current call runs as, bound for the extent of the call's planning and
 * execution, and the checks the SQL catalog and the ingest path make against it. Code running
 * outside a bound call (the server's own maintenance, tests of the engine alone) is not checked.
 */
public final class Grants {

  private static final ScopedValue<Principal> CALLER = ScopedValue.newInstance();

  private Grants() {}

  /** Runs {@code work} as {@code principal}. */
  public static <T> T callAs(Principal principal, Callable<T> work) throws Exception {
    return ScopedValue.where(CALLER, principal).call(work::call);
  }

  /** Runs {@code work} as {@code principal} (on an event loop: the work it hands to a {@link #propagating} executor keeps it). */
  public static void runAs(Principal principal, Runnable work) {
    ScopedValue.where(CALLER, principal).run(work);
  }

  /**
   * An executor that runs each task as the principal bound where the task was submitted (none if
   * none was), with its {@link dev.lake.flight.ops.TraceParent}; shutting it down shuts down
   * {@code workers}.
   */
  public static ExecutorService propagating(ExecutorService workers) {
    return new AbstractExecutorService() {
      @Override
      public void execute(Runnable task) {
        Runnable traced = dev.lake.flight.ops.TraceParent.propagate(task);
        if (!CALLER.isBound()) {
          workers.execute(traced);
          return;
        }
        Principal caller = CALLER.get();
        workers.execute(() -> ScopedValue.where(CALLER, caller).run(traced));
      }

      @Override
      public void shutdown() {
        workers.shutdown();
      }

      @Override
      public List<Runnable> shutdownNow() {
        return workers.shutdownNow();
      }

      @Override
      public boolean isShutdown() {
        return workers.isShutdown();
      }

      @Override
      public boolean isTerminated() {
        return workers.isTerminated();
      }

      @Override
      public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return workers.awaitTermination(timeout, unit);
      }
    };
  }

  /** The principal the current call runs as, if one is bound. */
  public static java.util.Optional<Principal> caller() {
    return CALLER.isBound() ? java.util.Optional.of(CALLER.get()) : java.util.Optional.empty();
  }

  /** An executor running each task as {@code principal} on {@code workers} (null: as is). */
  public static java.util.concurrent.Executor as(Principal principal,
      java.util.concurrent.Executor workers) {
    return principal == null ? workers
        : task -> workers.execute(() -> ScopedValue.where(CALLER, principal).run(task));
  }

  /** Whether {@code namespace} is visible to the caller (always, outside a bound call). */
  public static boolean visible(String namespace) {
    return !CALLER.isBound() || CALLER.get().mayRead(namespace);
  }

  /** Whether {@code namespace} of catalog {@code catalog} is visible to the caller. */
  public static boolean visible(String catalog, String namespace) {
    return !CALLER.isBound() || CALLER.get().mayRead(catalog, namespace);
  }

  /** Whether the caller may see some namespace of catalog {@code catalog} (discovery lists it). */
  public static boolean catalogVisible(String catalog) {
    return !CALLER.isBound() || CALLER.get().maySee(catalog);
  }

  /**
   * @throws AccessDeniedException if the caller may not read {@code catalog.namespace.table}
   */
  public static void checkRead(String catalog, String namespace, String table) {
    if (!visible(catalog, namespace)) {
      throw denied("read", catalog + "." + namespace, table);
    }
  }

  /**
   * @throws AccessDeniedException if the caller may not read {@code namespace.table}
   */
  public static void checkRead(String namespace, String table) {
    if (!visible(namespace)) {
      throw denied("read", namespace, table);
    }
  }

  /**
   * @throws AccessDeniedException if the caller may not append to, create or drop {@code
   *     namespace.table} (role READER, or no grant of the namespace)
   */
  public static void checkWrite(String namespace, String table) {
    if (CALLER.isBound() && !CALLER.get().mayWrite(namespace)) {
      throw denied("write", namespace, table);
    }
  }

  /**
   * @throws AccessDeniedException unless the caller is an ADMIN (namespace DDL)
   */
  public static void checkAdmin(String namespace) {
    if (CALLER.isBound() && CALLER.get().role() != Principal.Role.ADMIN) {
      throw new AccessDeniedException("principal '" + CALLER.get().name()
          + "' may not create or drop namespace '" + namespace + "': that needs role ADMIN");
    }
  }

  private static AccessDeniedException denied(String what, String namespace, String table) {
    Principal caller = CALLER.get();
    return new AccessDeniedException("principal '" + caller.name() + "' (role " + caller.role()
        + ") may not " + what + " table '" + namespace + "." + table + "': namespace '"
        + namespace + "' is not granted" + (what.equals("write")
            && caller.role() == Principal.Role.READER && caller.mayRead(namespace)
            ? " for writing (role READER)" : ""));
  }
}
