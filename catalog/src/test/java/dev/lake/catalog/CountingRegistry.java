package dev.lake.catalog;

import dev.lake.engine.AppendOperation;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A registry authority for tests: forwards to a real one, counts every call, can be taken
 * "down" (every call throws {@link RegistryUnavailableException}, nothing reaches the real one),
 * and can run a hook inside the next refresh, after the snapshot was read and before it is
 * returned (a write acknowledged while that refresh is in flight).
 */
public final class CountingRegistry implements TableRegistry {

  private final TableRegistry authority;
  /** Calls made, of every kind, down or not. */
  public final AtomicInteger calls = new AtomicInteger();
  /** {@link #lookup} calls made. */
  public final AtomicInteger lookups = new AtomicInteger();
  /** While true every call throws {@link RegistryUnavailableException}. */
  public volatile boolean down;
  /**
   * How many of the next appends lose their reply: each commits in the real authority, then the
   * call throws {@link RegistryUnavailableException} as if the connection dropped before the
   * answer arrived. Negative: every append does.
   */
  public final AtomicInteger appendRepliesToLose = new AtomicInteger();
  /** Appends whose reply was lost after they committed. */
  public final AtomicInteger appendRepliesLost = new AtomicInteger();
  private volatile Runnable duringNextRefresh;

  public CountingRegistry(TableRegistry authority) {
    this.authority = authority;
  }

  /** Runs {@code hook} inside the next snapshot call, after the snapshot was read. */
  public void duringNextRefresh(Runnable hook) {
    this.duringNextRefresh = hook;
  }

  private <T> T call(Supplier<T> call) {
    calls.incrementAndGet();
    if (down) {
      throw new RegistryUnavailableException("the test authority is down");
    }
    return call.get();
  }

  private void run(Runnable call) {
    call(() -> {
      call.run();
      return null;
    });
  }

  private <T> T inRefresh(T answer) {
    Runnable hook = duringNextRefresh;
    duringNextRefresh = null;
    if (hook != null) {
      hook.run();
    }
    return answer;
  }

  @Override
  public List<String> engineNames() {
    return call(authority::engineNames);
  }

  @Override
  public RegistrySnapshot snapshot() {
    return inRefresh(call(authority::snapshot));
  }

  @Override
  public Optional<RegistrySnapshot> snapshotIfChanged(long generation) {
    return inRefresh(call(() -> authority.snapshotIfChanged(generation)));
  }

  @Override
  public Optional<TableEntry> lookup(TableIdent ident) {
    lookups.incrementAndGet();
    return call(() -> authority.lookup(ident));
  }

  @Override
  public void createNamespace(String namespace) {
    run(() -> authority.createNamespace(namespace));
  }

  @Override
  public void dropNamespace(String namespace, boolean cascade) {
    run(() -> authority.dropNamespace(namespace, cascade));
  }

  @Override
  public TableEntry create(TableIdent ident, Schema schema, String engine) {
    return call(() -> authority.create(ident, schema, engine));
  }

  @Override
  public TableEntry createWith(TableIdent ident, Schema schema, String engine,
      AppendOperation operation, ArrowReader batches) {
    return call(() -> authority.createWith(ident, schema, engine, operation, batches));
  }

  @Override
  public TableEntry append(TableIdent ident, Optional<UUID> incarnation,
      AppendOperation operation, ArrowReader batches) {
    TableEntry committed = call(() -> authority.append(ident, incarnation, operation, batches));
    if (appendRepliesToLose.getAndUpdate(n -> n > 0 ? n - 1 : n) != 0) {
      appendRepliesLost.incrementAndGet();
      throw new RegistryUnavailableException("the test authority committed " + operation.operationId()
          + " at version " + committed.version().number() + " and lost the reply");
    }
    return committed;
  }

  @Override
  public TableEntry replace(TableIdent ident, Schema schema, AppendOperation operation,
      ArrowReader batches) {
    return call(() -> authority.replace(ident, schema, operation, batches));
  }

  @Override
  public TableEntry replaceWithEmpty(TableIdent ident, Schema schema) {
    return call(() -> authority.replaceWithEmpty(ident, schema));
  }

  @Override
  public void drop(TableIdent ident) {
    run(() -> authority.drop(ident));
  }
}
