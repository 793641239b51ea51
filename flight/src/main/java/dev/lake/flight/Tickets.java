package dev.lake.flight;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lake.catalog.CatalogCache;
import dev.lake.catalog.InvalidNameException;
import dev.lake.catalog.TableEntry;
import dev.lake.catalog.TableIdent;
import dev.lake.engine.Version;
import dev.lake.flight.auth.Principal;
import dev.lake.flight.ticket.SnapshotPin;
import dev.lake.flight.ticket.TicketSealer;
import dev.lake.sql.TableName;
import io.vertx.grpc.common.GrpcStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.flight.sql.impl.FlightSql;

/**
 * Where {@link TicketCodec}'s plain bytes meet the {@link TicketSealer}'s envelopes: every ticket
 * and handle leaving the server is sealed for the calling principal here, and every one coming
 * back is opened here, so the rest of the server only sees plain, authenticated bytes.
 *
 * <p>A ticket records, for each table it pins, the registry's incarnation, engine and location at
 * planning time; {@link #requireSnapshots} refuses to replay it once that incarnation is gone
 * (dropped, or dropped and re-created), so a DoGet never falls forward to other data.
 */
final class Tickets {

  private final TicketSealer sealer;
  private final CatalogCache catalog;

  Tickets(TicketSealer sealer, CatalogCache catalog) {
    this.sealer = sealer;
    this.catalog = catalog;
  }

  /** A ticket as redeemed: what to stream, and the snapshots it must read. */
  record Redeemed(TicketCodec.Ticket ticket, List<SnapshotPin> snapshots) {}

  /** Seals a plain ticket pinning {@code pins} (as the registry has them now). Worker thread. */
  byte[] sealTicket(Principal principal, byte[] plain, Map<TableName, Version> pins) {
    List<SnapshotPin> snapshots = new ArrayList<>(pins.size());
    for (Map.Entry<TableName, Version> pin : pins.entrySet()) {
      TableName name = pin.getKey();
      long version = pin.getValue().number();
      if (!name.isLake()) {
        // A federated table: the version is its snapshot id, which fixes the data files and the
        // schema the snapshot was committed with; any replica replays exactly that snapshot.
        snapshots.add(new SnapshotPin(name.catalog() + "." + name.schema(), name.table(), null, null,
            null, version));
        continue;
      }
      Optional<TableEntry> entry = entry(name);
      if (entry.isPresent() && entry.get().version().number() < version) {
        // The registry moved between planning and now (a re-create): the plan's incarnation is
        // no longer the one to record.
        throw ErrorMapper.status(GrpcStatus.ABORTED, "table lake." + name
            + " was re-created while the query was planned; run it again");
      }
      snapshots.add(entry.map(e -> new SnapshotPin(name.schema(), name.table(), e.engine(),
              e.location().uri().toString(), e.incarnation(), version))
          .orElseGet(() -> new SnapshotPin(name.schema(), name.table(), null, null, null, version)));
    }
    return sealer.seal(TicketSealer.Kind.TICKET, principal, snapshots, plain);
  }

  /**
   * Opens a ticket issued to {@code principal}.
   *
   * @throws dev.lake.flight.ticket.TicketRefusedException if it is not one this cluster issued
   *     to the principal, or expired
   * @throws TicketCodec.InvalidTicketException if its inner bytes do not decode
   */
  Redeemed openTicket(Principal principal, byte[] sealed) {
    TicketSealer.Opened opened = sealer.open(TicketSealer.Kind.TICKET, sealed, principal);
    return new Redeemed(TicketCodec.decodeTicket(opened.payload()), opened.pins());
  }

  byte[] sealHandle(Principal principal, byte[] plain) {
    return sealer.seal(TicketSealer.Kind.HANDLE, principal, List.of(), plain);
  }

  byte[] openHandle(Principal principal, byte[] sealed) {
    return sealer.open(TicketSealer.Kind.HANDLE, sealed, principal).payload();
  }

  /**
   * The command with its prepared-statement handle opened, for the two commands that carry one;
   * any other command unchanged.
   */
  Any openHandles(Principal principal, Any command) throws InvalidProtocolBufferException {
    if (command.is(FlightSql.CommandPreparedStatementQuery.class)) {
      FlightSql.CommandPreparedStatementQuery query =
          command.unpack(FlightSql.CommandPreparedStatementQuery.class);
      return Any.pack(query.toBuilder().setPreparedStatementHandle(ByteString.copyFrom(
          openHandle(principal, query.getPreparedStatementHandle().toByteArray()))).build());
    }
    if (command.is(FlightSql.CommandPreparedStatementUpdate.class)) {
      FlightSql.CommandPreparedStatementUpdate update =
          command.unpack(FlightSql.CommandPreparedStatementUpdate.class);
      return Any.pack(update.toBuilder().setPreparedStatementHandle(ByteString.copyFrom(
          openHandle(principal, update.getPreparedStatementHandle().toByteArray()))).build());
    }
    return command;
  }

  /** The result of CreatePreparedStatement with its handle sealed. */
  FlightSql.ActionCreatePreparedStatementResult sealHandle(Principal principal,
      FlightSql.ActionCreatePreparedStatementResult result) {
    return result.toBuilder().setPreparedStatementHandle(ByteString.copyFrom(sealHandle(principal,
        result.getPreparedStatementHandle().toByteArray()))).build();
  }

  /**
   * Checks that every registered table a ticket pins is still the incarnation it was planned
   * against; a table whose registry view is older than the pin (another replica planned after a
   * later commit) makes the cache refresh once first. Worker thread.
   *
   * @throws io.vertx.grpc.server.StatusException NOT_FOUND naming the table if it was dropped or
   *     re-created since planning
   */
  void requireSnapshots(List<SnapshotPin> snapshots) {
    boolean refreshed = false;
    for (SnapshotPin pin : snapshots) {
      if (!pin.registered()) {
        continue;
      }
      TableName name = new TableName(pin.schema(), pin.table());
      Optional<TableEntry> entry = entry(name);
      if (!refreshed && (entry.isEmpty() || entry.get().incarnation().equals(pin.incarnation())
          && entry.get().version().number() < pin.version())) {
        refreshed = true;
        catalog.refresh();
        entry = entry(name);
      }
      if (entry.isEmpty()) {
        throw ErrorMapper.status(GrpcStatus.NOT_FOUND, "table lake." + name
            + " was dropped after the query was planned: the ticket's snapshot (version "
            + pin.version() + ") is gone");
      }
      TableEntry now = entry.get();
      if (!now.incarnation().equals(pin.incarnation()) || !now.engine().equals(pin.engine())
          || !now.location().uri().toString().equals(pin.location())) {
        throw ErrorMapper.status(GrpcStatus.NOT_FOUND, "table lake." + name
            + " was dropped and re-created after the query was planned: the ticket's snapshot"
            + " (version " + pin.version() + " of the earlier table) is gone; plan the query again");
      }
    }
  }

  private Optional<TableEntry> entry(TableName name) {
    try {
      return catalog.lookup(TableIdent.of(name.schema(), name.table()));
    } catch (InvalidNameException e) {
      return Optional.empty();
    }
  }
}
