package dev.lake.sql;

import org.apache.calcite.sql.SqlNode;

import dev.lake.engine.Snapshot;
import dev.lake.engine.TableHandle;
import dev.lake.engine.Version;
import dev.lake.engine.VersionNotFoundException;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.Statistic;
import org.apache.calcite.schema.Statistics;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.impl.AbstractTable;

/**
 * The {@link SqlCatalog} as Calcite schemas for one planning run: the root resolves
 * {@code lake.schema.table}, {@code schema.table} and a bare table name held by exactly one
 * schema. Each table is pinned to one snapshot the first time it is named; a name with the
 * suffix {@code @n} (how {@code FOR VERSION AS OF n} reaches Calcite) is pinned to version n.
 */
final class CalciteTables {
  static final String VERSION_MARK = "@";

  private final SqlCatalog catalog;
  private final Map<TableName, Version> pins;
  private final Map<String, LakeTable> opened = new HashMap<>();

  CalciteTables(SqlCatalog catalog, Map<TableName, Version> pins) {
    this.catalog = catalog;
    this.pins = pins;
  }

  private final Map<String, org.apache.calcite.sql.parser.SqlParserPos> versionPositions = new HashMap<>();

  /**
   * Where the statement names each {@code table@n}, so that a version that does not exist is
   * reported at its place in the text.
   */
  void versionsAt(SqlNode statement) {
    statement.accept(new org.apache.calcite.sql.util.SqlBasicVisitor<Void>() {
      @Override
      public Void visit(org.apache.calcite.sql.SqlIdentifier id) {
        if (id.names.getLast().contains(VERSION_MARK)) {
          versionPositions.putIfAbsent(id.names.getLast(), id.getParserPosition());
        }
        return null;
      }
    });
  }

  /** The tables resolved so far. */
  Map<String, LakeTable> opened() {
    return opened;
  }

  Schema root() {
    return new AbstractSchema() {
      @Override
      protected Map<String, Table> getTableMap() {
        Map<String, List<String>> owners = new HashMap<>();
        for (String schema : catalog.schemaNames()) {
          for (String table : catalog.tableNames(schema)) {
            owners.computeIfAbsent(table, t -> new ArrayList<>()).add(schema);
          }
        }
        Map<String, String> unique = new LinkedHashMap<>();
        owners.forEach((table, schemas) -> {
          if (schemas.size() == 1) {
            unique.put(table, schemas.getFirst());
          }
        });
        // A session's default schema wins for the tables it holds.
        Optional<String> preferred = catalog.defaultSchema();
        preferred.ifPresent(schema -> catalog.tableNames(schema).forEach(t -> unique.put(t, schema)));
        return new TableMap(SqlCatalog.LAKE, catalog, unique, name -> {
          int mark = name.lastIndexOf(VERSION_MARK);
          String base = mark > 0 ? name.substring(0, mark) : null;
          if (base != null && preferred.isPresent()
              && catalog.tableNames(preferred.get()).contains(base)) {
            return preferred.get();
          }
          List<String> schemas = base != null ? owners.get(base) : null;
          return schemas != null && schemas.size() == 1 ? schemas.getFirst() : null;
        });
      }

      @Override
      protected Map<String, Schema> getSubSchemaMap() {
        Map<String, Schema> schemas = new SchemaMap();
        schemas.putIfAbsent(SqlCatalog.LAKE, new AbstractSchema() {
          @Override
          protected Map<String, Schema> getSubSchemaMap() {
            return new SchemaMap();
          }
        });
        catalog.federated().forEach((name, federated) -> schemas.putIfAbsent(name, new AbstractSchema() {
          @Override
          protected Map<String, Schema> getSubSchemaMap() {
            return new SchemaMap(name, federated);
          }
        }));
        return schemas;
      }
    };
  }

  private Schema schema(String schema) {
    return schema(SqlCatalog.LAKE, catalog, schema);
  }

  private Schema schema(String catalogName, SqlCatalog owner, String schema) {
    return new AbstractSchema() {
      @Override
      protected Map<String, Table> getTableMap() {
        Map<String, String> tables = new LinkedHashMap<>();
        for (String table : owner.tableNames(schema)) {
          tables.put(table, schema);
        }
        // A name the listing lacks (versioned, or created through another replica since the
        // listing was taken) is asked for: the catalog resolves it or answers absent.
        return new TableMap(catalogName, owner, tables, name -> schema);
      }
    };
  }

  /**
   * The catalog's schemas by name; a name its listing lacks is asked for once per planning run
   * ({@link SqlCatalog#schemaExists}), so a schema created through another replica resolves.
   */
  private final class SchemaMap extends LinkedHashMap<String, Schema> {
    private static final long serialVersionUID = 1L;
    private final Map<String, Boolean> asked = new HashMap<>();
    private final String catalogName;
    private final SqlCatalog owner;

    SchemaMap() {
      this(SqlCatalog.LAKE, catalog);
    }

    SchemaMap(String catalogName, SqlCatalog owner) {
      this.catalogName = catalogName;
      this.owner = owner;
      for (String schema : owner.schemaNames()) {
        super.put(schema, schema(catalogName, owner, schema));
      }
    }

    @Override
    public Schema get(Object key) {
      Schema known = super.get(key);
      if (known != null || !(key instanceof String name)) {
        return known;
      }
      return asked.computeIfAbsent(name, owner::schemaExists) ? schema(catalogName, owner, name) : null;
    }

    @Override
    public boolean containsKey(Object key) {
      return get(key) != null;
    }
  }

  /**
   * Table name to table, opening (and pinning) a table only when it is looked up; versioned
   * names, which no listing holds, are answered by {@code versioned} naming their schema.
   */
  private final class TableMap extends AbstractMap<String, Table> {
    private final String catalogName;
    private final SqlCatalog owner;
    private final Map<String, String> schemaOf;
    private final Function<String, String> versioned;

    TableMap(String catalogName, SqlCatalog owner, Map<String, String> schemaOf,
        Function<String, String> versioned) {
      this.catalogName = catalogName;
      this.owner = owner;
      this.schemaOf = schemaOf;
      this.versioned = versioned;
    }

    @Override
    public Table get(Object key) {
      String name = (String) key;
      String schema = schemaOf.get(name);
      if (schema == null) {
        schema = versioned.apply(name);
      }
      return schema == null ? null : table(catalogName, owner, schema, name);
    }

    @Override
    public boolean containsKey(Object key) {
      return get(key) != null;
    }

    @Override
    public Set<Entry<String, Table>> entrySet() {
      Map<String, Table> all = new LinkedHashMap<>();
      for (String name : schemaOf.keySet()) {
        Table table = get(name);
        if (table != null) {
          all.put(name, table);
        }
      }
      return all.entrySet();
    }
  }

  private LakeTable table(String catalogName, SqlCatalog owner, String schema, String nameWithVersion) {
    String key = catalogName + "." + schema + "." + nameWithVersion;
    LakeTable cached = opened.get(key);
    if (cached != null) {
      return cached;
    }
    int mark = nameWithVersion.lastIndexOf(VERSION_MARK);
    String tableName = mark > 0 ? nameWithVersion.substring(0, mark) : nameWithVersion;
    TableName name = new TableName(catalogName, schema, tableName);
    Optional<TableHandle> handle = owner.openTable(name);
    if (handle.isEmpty()) {
      return null;
    }
    Version version;
    if (mark > 0 && nameWithVersion.startsWith(TimeTravel.TIME_MARK, mark + 1)) {
      version = TimeTravel.at(handle.get(), name,
          Long.parseLong(nameWithVersion.substring(mark + 1 + TimeTravel.TIME_MARK.length())), null);
    } else if (mark > 0) {
      version = Version.of(Long.parseLong(nameWithVersion.substring(mark + 1)));
    } else if (pins.containsKey(name)) {
      version = pins.get(name);
    } else {
      version = handle.get().currentVersion();
    }
    Snapshot snapshot;
    try {
      snapshot = handle.get().snapshot(version);
    } catch (VersionNotFoundException e) {
      org.apache.calcite.sql.parser.SqlParserPos at = mark > 0 ? versionPositions.get(nameWithVersion) : null;
      throw new SqlException(SqlException.Kind.VERSION_NOT_FOUND,
          "version " + version + " of table " + name.qualified() + " not found",
          at == null ? 0 : at.getLineNum(), at == null ? 0 : at.getColumnNum(), e);
    }
    LakeTable table = new LakeTable(name, version, snapshot);
    opened.put(key, table);
    return table;
  }

  /** One table at one pinned snapshot. */
  static final class LakeTable extends AbstractTable {
    final TableName name;
    final Version version;
    final Snapshot snapshot;

    LakeTable(TableName name, Version version, Snapshot snapshot) {
      this.name = name;
      this.version = version;
      this.snapshot = snapshot;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory factory) {
      RelDataTypeFactory.Builder builder = factory.builder();
      for (Field field : snapshot.schema().getFields()) {
        builder.add(field.getName(), RelTypes.column(factory, field));
      }
      return builder.build();
    }

    @Override
    public Statistic getStatistic() {
      return Statistics.of((double) snapshot.rowCount(), List.of());
    }
  }
}
