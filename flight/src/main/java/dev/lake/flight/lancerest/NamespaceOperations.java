package dev.lake.flight.lancerest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lake.catalog.LanceNamespaces;
import dev.lake.catalog.LanceNamespaces.CreateMode;
import dev.lake.catalog.LanceNamespaces.Located;
import dev.lake.catalog.LanceNamespaces.Page;
import dev.lake.catalog.LanceNamespaces.TableDescription;
import dev.lake.catalog.TableEntry;
import dev.lake.catalog.TableIdent;
import dev.lake.flight.auth.AccessDeniedException;
import dev.lake.flight.auth.Grants;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Lance Namespace operations lake serves, each from a decoded {@link RestCall} to a reply:
 * parameters read as the spec names them, the answer shaped as the spec's response model. Runs
 * on a worker thread (every operation reads or writes the registry).
 */
final class NamespaceOperations {

  /** A reply: HTTP status and JSON body (null: no body). */
  record Reply(int status, JsonNode body) {}

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final LanceNamespaces namespaces;

  NamespaceOperations(LanceNamespaces namespaces) {
    this.namespaces = namespaces;
  }

  Reply createNamespace(RestCall call) {
    CreateMode mode = switch (call.mode("mode").orElse("create")) {
      case "create" -> CreateMode.CREATE;
      case "existok" -> CreateMode.EXIST_OK;
      case "overwrite" -> CreateMode.OVERWRITE;
      default -> throw new RestError.BadRequest("mode must be Create, ExistOk or Overwrite, got "
          + call.string("mode").orElseThrow());
    };
    Grants.checkAdmin(String.join(".", call.id()));
    namespaces.createNamespace(call.id(), mode, call.stringMap("properties"));
    return new Reply(201, JSON.objectNode());
  }

  Reply listNamespaces(RestCall call) {
    readNamespace(call.id());
    Page<String> page = namespaces.listNamespaces(call.id(), call.string("page_token"), call.number("limit"));
    List<String> visible = call.id().isEmpty()
        ? page.items().stream().filter(Grants::visible).toList() : page.items();
    return new Reply(200, page("namespaces", visible, page.nextToken()));
  }

  Reply describeNamespace(RestCall call) {
    readNamespace(call.id());
    namespaces.requireNamespace(call.id());
    return new Reply(200, JSON.objectNode());
  }

  Reply namespaceExists(RestCall call) {
    readNamespace(call.id());
    namespaces.requireNamespace(call.id());
    return new Reply(204, null);
  }

  Reply dropNamespace(RestCall call) {
    boolean skip = switch (call.mode("mode").orElse("fail")) {
      case "fail" -> false;
      case "skip" -> true;
      default -> throw new RestError.BadRequest("mode must be Fail or Skip, got " + call.string("mode").orElseThrow());
    };
    boolean cascade = switch (call.mode("behavior").orElse("restrict")) {
      case "restrict" -> false;
      case "cascade" -> true;
      default -> throw new RestError.BadRequest("behavior must be Restrict or Cascade, got "
          + call.string("behavior").orElseThrow());
    };
    Grants.checkAdmin(String.join(".", call.id()));
    namespaces.dropNamespace(call.id(), skip, cascade);
    return new Reply(200, JSON.objectNode());
  }

  Reply listTables(RestCall call) {
    readNamespace(call.id());
    Page<String> page = namespaces.listTables(call.id(), call.string("page_token"), call.number("limit"),
        call.flag("include_declared"));
    return new Reply(200, page("tables", page.items(), page.nextToken()));
  }

  Reply listAllTables(RestCall call) {
    String delimiter = call.string("delimiter").orElse(RestCall.DEFAULT_DELIMITER);
    Page<TableIdent> page = namespaces.listAllTables(call.string("page_token"), call.number("limit"));
    List<String> ids = page.items().stream().filter(t -> Grants.visible(t.namespace())).map(t -> t.namespace() + delimiter + t.name()).toList();
    return new Reply(200, page("tables", ids, page.nextToken()));
  }

  Reply declareTable(RestCall call) {
    write(call.id());
    Located declared = namespaces.declareTable(call.id(), call.string("location"));
    ObjectNode node = JSON.objectNode();
    node.put("location", declared.location().toString());
    storageOptions(node, declared.storageOptions());
    node.put("managed_versioning", false);
    return new Reply(201, node);
  }

  Reply describeTable(RestCall call) {
    read(call.id());
    TableDescription table = namespaces.describeTable(call.id(), call.flag("load_detailed_metadata"),
        call.flag("check_declared"), call.number("version"));
    ObjectNode node = JSON.objectNode();
    node.put("table", table.ident().name());
    node.putArray("namespace").add(table.ident().namespace());
    table.version().ifPresent(v -> node.put("version", v));
    node.put("location", table.location().toString());
    node.put("table_uri", table.location().toString());
    table.schema().ifPresent(s -> node.set("schema", JsonArrowSchemas.toJson(s)));
    storageOptions(node, table.storageOptions());
    table.fragments().ifPresent(f -> {
      ObjectNode stats = node.putObject("stats");
      stats.put("num_deleted_rows", 0);
      stats.put("num_fragments", f);
    });
    node.put("managed_versioning", false);
    if (table.onlyDeclared() || call.flag("check_declared") || call.flag("load_detailed_metadata")) {
      node.put("is_only_declared", table.onlyDeclared());
    }
    return new Reply(200, node);
  }

  Reply tableExists(RestCall call) {
    read(call.id());
    namespaces.tableExists(call.id());
    return new Reply(204, null);
  }

  Reply registerTable(RestCall call) {
    boolean overwrite = switch (call.mode("mode").orElse("create")) {
      case "create" -> false;
      case "overwrite" -> true;
      default -> throw new RestError.BadRequest("mode must be Create or Overwrite, got " + call.string("mode").orElseThrow());
    };
    String location = call.string("location")
        .orElseThrow(() -> new RestError.BadRequest("register needs a location"));
    write(call.id());
    TableEntry entry = namespaces.registerTable(call.id(), location, overwrite);
    ObjectNode node = JSON.objectNode();
    node.put("location", entry.location().toString());
    return new Reply(200, node);
  }

  Reply deregisterTable(RestCall call) {
    write(call.id());
    return new Reply(200, located(namespaces.deregisterTable(call.id())));
  }

  Reply dropTable(RestCall call) {
    write(call.id());
    return new Reply(200, located(namespaces.dropTable(call.id())));
  }

  Reply renameTable(RestCall call) {
    String newName = call.string("new_table_name")
        .orElseThrow(() -> new RestError.BadRequest("rename needs new_table_name"));
    write(call.id());
    Optional<List<String>> target = call.parts("new_namespace_id");
    if (target.isPresent() && target.get().size() == 1) {
      Grants.checkWrite(target.get().getFirst(), newName);
    }
    namespaces.renameTable(call.id(), target, newName);
    return new Reply(200, JSON.objectNode());
  }

  Reply countTableRows(RestCall call) {
    if (call.string("predicate").filter(p -> !p.isBlank()).isPresent()) {
      throw new RestError.Unsupported("count_rows with a predicate is not served by lake; query"
          + " the table through Flight SQL");
    }
    // A bare integer, as the spec's response and lance-core 7.0.0's REST client read it (the
    // reference RestAdapter answers {"count": n}, which that client fails to parse).
    read(call.id());
    return new Reply(200, JSON.numberNode(namespaces.countRows(call.id(), call.number("version"))));
  }

  // Checks run before the registry is asked, so a refusal tells nothing of what exists. An id of
  // another shape is left to LanceNamespaces, which refuses it as invalid input.

  private static void read(List<String> tableId) {
    if (tableId.size() == 2) {
      Grants.checkRead(tableId.get(0), tableId.get(1));
    }
  }

  private static void write(List<String> tableId) {
    if (tableId.size() == 2) {
      Grants.checkWrite(tableId.get(0), tableId.get(1));
    }
  }

  private static void readNamespace(List<String> namespaceId) {
    if (namespaceId.size() == 1 && !Grants.visible(namespaceId.getFirst())) {
      throw new AccessDeniedException("principal '" + Grants.caller().orElseThrow().name()
          + "' may not read namespace '" + namespaceId.getFirst() + "': it is not granted");
    }
  }

  private static ObjectNode located(Located located) {
    ObjectNode node = JSON.objectNode();
    node.putArray("id").add(located.ident().namespace()).add(located.ident().name());
    node.put("location", located.location().toString());
    return node;
  }

  private static void storageOptions(ObjectNode node, Map<String, String> options) {
    if (!options.isEmpty()) {
      ObjectNode map = node.putObject("storage_options");
      options.forEach(map::put);
    }
  }

  private static ObjectNode page(String field, List<String> items, Optional<String> next) {
    ObjectNode node = JSON.objectNode();
    ArrayNode array = node.putArray(field);
    items.forEach(array::add);
    next.ifPresent(token -> node.put("page_token", token));
    return node;
  }
}
