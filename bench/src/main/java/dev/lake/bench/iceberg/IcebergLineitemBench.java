package dev.lake.bench.iceberg;

import dev.lake.bench.tpch.ProcessCpu;
import dev.lake.flight.IcebergSqlCatalog;
import dev.lake.iceberg.IcebergFederation;
import dev.lake.iceberg.IcebergSettings;
import dev.lake.iceberg.LocalFileIO;
import dev.lake.sql.SqlCatalog;
import dev.lake.sql.SqlEngine;
import io.trino.tpch.LineItem;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.rest.LoopbackRestCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Scan, filter and aggregate of TPC-H lineitem kept as an Iceberg table (Parquet, partitioned by
 * ship month) behind Iceberg's own REST catalog server, read through lake's catalog {@code
 * iceberg} (lake's SQL engine in this process, the federation asking the REST server), against
 * DuckDB reading the same Parquet files, same thread count, alternately in one run. Prints the
 * medians, the ratio lake/DuckDB and the process CPU of each, checks that both engines answer the
 * same, and reports the files and row groups Iceberg's planner prunes for a one-month predicate.
 *
 * <pre>bench/iceberg-lineitem [--sf 1] [--runs 3] [--warmup 1] [--threads 1] [--dir DIR]</pre>
 *
 * The table is written once per scale factor into {@code --dir} (default {@code
 * $TMPDIR/lake-iceberg-lineitem-sf<sf>}, the catalog kept in a SQLite file there) and reused.
 */
public final class IcebergLineitemBench {
  private IcebergLineitemBench() {}

  private static final TableIdentifier LINEITEM = TableIdentifier.of("tpch", "lineitem");

  /** The measured statements (tables unqualified: lake resolves them in catalog iceberg). */
  private static final Map<String, String> QUERIES = new LinkedHashMap<>();

  static {
    QUERIES.put("agg-all", "SELECT l_returnflag, l_linestatus, count(*) AS n, sum(l_quantity) AS q,"
        + " sum(l_extendedprice) AS p, avg(l_discount) AS d FROM tpch.lineitem"
        + " WHERE l_shipdate <= DATE '1998-09-02' GROUP BY l_returnflag, l_linestatus"
        + " ORDER BY l_returnflag, l_linestatus");
    QUERIES.put("one-month", "SELECT count(*) AS n, sum(l_extendedprice * (1 - l_discount)) AS r"
        + " FROM tpch.lineitem WHERE l_shipdate >= DATE '1995-03-01'"
        + " AND l_shipdate < DATE '1995-04-01'");
    QUERIES.put("q6-year", "SELECT sum(l_extendedprice * l_discount) AS revenue FROM tpch.lineitem"
        + " WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'"
        + " AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24");
  }

  public static void main(String[] args) throws Exception {
    double sf = 1;
    int runs = 3;
    int warmup = 1;
    int threads = 1;
    Path dir = null;
    for (int i = 0; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(args[i] + " needs a value");
      }
      switch (args[i]) {
        case "--sf" -> sf = Double.parseDouble(args[i + 1]);
        case "--runs" -> runs = Integer.parseInt(args[i + 1]);
        case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
        case "--threads" -> threads = Integer.parseInt(args[i + 1]);
        case "--dir" -> dir = Path.of(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + "; use --sf, --runs, --warmup, --threads, --dir");
      }
    }
    if (dir == null) {
      dir = Path.of(System.getProperty("java.io.tmpdir"), "lake-iceberg-lineitem-sf" + sf);
    }
    Files.createDirectories(dir);
    try (LoopbackRestCatalog rest = LoopbackRestCatalog.startPersistent(dir.resolve("warehouse"),
            dir.resolve("catalog.sqlite"));
        RESTCatalog client = new RESTCatalog()) {
      client.initialize("bench", Map.of("uri", rest.uri().toString(),
          "io-impl", LocalFileIO.class.getName()));
      Table table = client.tableExists(LINEITEM) ? client.loadTable(LINEITEM) : write(client, sf);
      pruning(table);
      try (IcebergFederation federation = IcebergFederation.connect(
              IcebergSettings.of(rest.uri()).withCache(Duration.ofMinutes(10), 100));
          BufferAllocator allocator = new RootAllocator();
          Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
        try (Statement s = duck.createStatement()) {
          s.execute("SET threads TO " + threads);
          s.execute("CREATE SCHEMA tpch");
          s.execute("CREATE VIEW tpch.lineitem AS SELECT * FROM read_parquet('"
              + Path.of(table.location().replaceFirst("^file:", ""), "data").toString().replace("'", "''")
              + "/**/*.parquet', hive_partitioning = false)");
        }
        SqlCatalog iceberg = IcebergSqlCatalog.federated(federation).get(IcebergFederation.CATALOG);
        SqlEngine lake = new SqlEngine(iceberg, Long.MAX_VALUE, threads, null, 0);
        System.out.printf(Locale.ROOT, "%nIceberg lineitem SF %s (%s), %d runs after %d warm-ups,"
            + " threads=%d each%n", sf, dir, runs, warmup, threads);
        System.out.printf(Locale.ROOT, "%-10s %10s %10s %7s %12s %12s %9s  %s%n", "query", "lake ms",
            "duckdb ms", "ratio", "lake cpu ms", "duck cpu ms", "cpu ratio", "answers");
        double logSum = 0;
        for (Map.Entry<String, String> q : QUERIES.entrySet()) {
          List<List<Object>> lakeRows = List.of();
          List<List<Object>> duckRows = List.of();
          double[] lakeMs = new double[runs];
          double[] duckMs = new double[runs];
          double[] lakeCpu = new double[runs];
          double[] duckCpu = new double[runs];
          for (int r = -warmup; r < runs; r++) {
            long cpu0 = ProcessCpu.nanos();
            long t0 = System.nanoTime();
            lakeRows = runLake(lake, q.getValue(), allocator);
            long t1 = System.nanoTime();
            long cpu1 = ProcessCpu.nanos();
            duckRows = runDuck(duck, q.getValue());
            long t2 = System.nanoTime();
            long cpu2 = ProcessCpu.nanos();
            if (r >= 0) {
              lakeMs[r] = (t1 - t0) / 1e6;
              duckMs[r] = (t2 - t1) / 1e6;
              lakeCpu[r] = (cpu1 - cpu0) / 1e6;
              duckCpu[r] = (cpu2 - cpu1) / 1e6;
            }
          }
          double l = median(lakeMs);
          double d = median(duckMs);
          logSum += Math.log(l / d);
          System.out.printf(Locale.ROOT, "%-10s %10.1f %10.1f %6.2fx %12.1f %12.1f %8.2fx  %s%n",
              q.getKey(), l, d, l / d, median(lakeCpu), median(duckCpu),
              median(lakeCpu) / median(duckCpu), same(lakeRows, duckRows) ? "same"
                  : "DIFFER lake=" + lakeRows + " duckdb=" + duckRows);
        }
        System.out.printf(Locale.ROOT, "geometric mean lake/duckdb: %.2fx%n",
            Math.exp(logSum / QUERIES.size()));
        for (String line : explain(lake, QUERIES.get("one-month"), allocator)) {
          if (line.contains("Scan ")) {
            System.out.println("lake plan, one-month: " + line.trim());
          }
        }
      }
    }
  }

  /** Writes lineitem at {@code sf} as {@code tpch.lineitem}, one data file per ship month. */
  private static Table write(RESTCatalog client, double sf) throws Exception {
    List<TpchColumn<LineItem>> columns = TpchTable.LINE_ITEM.getColumns();
    List<Types.NestedField> fields = new ArrayList<>();
    for (int c = 0; c < columns.size(); c++) {
      Type type = switch (columns.get(c).getType().getBase()) {
        case IDENTIFIER -> Types.LongType.get();
        case INTEGER -> Types.IntegerType.get();
        case DOUBLE -> Types.DoubleType.get();
        case DATE -> Types.DateType.get();
        case VARCHAR -> Types.StringType.get();
      };
      fields.add(Types.NestedField.required(c + 1, columns.get(c).getColumnName(), type));
    }
    Schema schema = new Schema(fields);
    PartitionSpec spec = PartitionSpec.builderFor(schema).month("l_shipdate").build();
    if (!client.namespaceExists(Namespace.of("tpch"))) {
      client.createNamespace(Namespace.of("tpch"));
    }
    Table table = client.createTable(LINEITEM, schema, spec,
        Map.of(TableProperties.FORMAT_VERSION, "2"));
    long start = System.nanoTime();
    Map<PartitionKey, DataWriter<Record>> writers = new HashMap<>();
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    GenericRecord record = GenericRecord.create(schema);
    PartitionKey probe = new PartitionKey(spec, schema);
    long rows = 0;
    for (LineItem item : TpchTable.LINE_ITEM.createGenerator(sf, 1, 1)) {
      for (int c = 0; c < columns.size(); c++) {
        TpchColumn<LineItem> col = columns.get(c);
        record.set(c, switch (col.getType().getBase()) {
          case IDENTIFIER -> col.getIdentifier(item);
          case INTEGER -> col.getInteger(item);
          case DOUBLE -> col.getDouble(item);
          case DATE -> LocalDate.ofEpochDay(col.getDate(item));
          case VARCHAR -> col.getString(item);
        });
      }
      probe.partition(wrapper.wrap(record));
      DataWriter<Record> writer = writers.get(probe);
      if (writer == null) {
        PartitionKey key = probe.copy();
        writer = Parquet.writeData(table.io().newOutputFile(table.locationProvider()
                .newDataLocation(spec, key, java.util.UUID.randomUUID() + ".parquet")))
            .schema(schema).createWriterFunc(GenericParquetWriter::create)
            .withSpec(spec).withPartition(key).overwrite().build();
        writers.put(key, writer);
      }
      writer.write(record);
      rows++;
    }
    var append = table.newAppend();
    for (DataWriter<Record> writer : writers.values()) {
      writer.close();
      append.appendFile(writer.toDataFile());
    }
    append.commit();
    System.out.printf(Locale.ROOT, "wrote %,d rows in %d files in %.1f s%n", rows, writers.size(),
        (System.nanoTime() - start) / 1e9);
    table.refresh();
    return table;
  }

  /** Files and row groups the table has, and those Iceberg's planner keeps for one month. */
  private static void pruning(Table table) throws Exception {
    long[] all = count(table, Expressions.alwaysTrue());
    long[] month = count(table, Expressions.and(
        Expressions.greaterThanOrEqual("l_shipdate", "1995-03-01"),
        Expressions.lessThan("l_shipdate", "1995-04-01")));
    System.out.printf(Locale.ROOT, "one-month predicate: %d of %d files kept (%.1f%% pruned),"
            + " %d of %d row groups kept (%.1f%% pruned)%n", month[0], all[0],
        100.0 * (all[0] - month[0]) / all[0], month[1], all[1],
        100.0 * (all[1] - month[1]) / all[1]);
  }

  private static long[] count(Table table, Expression filter) throws Exception {
    long files = 0;
    long rowGroups = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().filter(filter).planFiles()) {
      for (FileScanTask task : tasks) {
        files++;
        List<Long> offsets = task.file().splitOffsets();
        rowGroups += offsets == null ? 1 : offsets.size();
      }
    }
    return new long[] {files, rowGroups};
  }

  private static List<List<Object>> runLake(SqlEngine sql, String text, BufferAllocator allocator)
      throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    try (ArrowReader reader = sql.prepare(text).execute(allocator)) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            Object value = v.getObject(r);
            row.add(value instanceof org.apache.arrow.vector.util.Text t ? t.toString() : value);
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  private static List<String> explain(SqlEngine sql, String text, BufferAllocator allocator)
      throws Exception {
    List<String> lines = new ArrayList<>();
    for (List<Object> row : runLake(sql, "EXPLAIN " + text, allocator)) {
      lines.add(String.valueOf(row.get(0)));
    }
    return lines;
  }

  private static List<List<Object>> runDuck(Connection duck, String text) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery(text)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int c = 1; c <= n; c++) {
          row.add(rs.getObject(c));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /** The same rows: numbers equal to 1e-9 relative, everything else by its text. */
  private static boolean same(List<List<Object>> a, List<List<Object>> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int r = 0; r < a.size(); r++) {
      List<Object> x = a.get(r);
      List<Object> y = b.get(r);
      if (x.size() != y.size()) {
        return false;
      }
      for (int c = 0; c < x.size(); c++) {
        Object u = x.get(c);
        Object v = y.get(c);
        if (u instanceof Number m && v instanceof Number n) {
          double p = m.doubleValue();
          double q = n.doubleValue();
          if (Math.abs(p - q) > 1e-9 * Math.max(1, Math.max(Math.abs(p), Math.abs(q)))) {
            return false;
          }
        } else if (!String.valueOf(u).equals(String.valueOf(v))) {
          return false;
        }
      }
    }
    return true;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
