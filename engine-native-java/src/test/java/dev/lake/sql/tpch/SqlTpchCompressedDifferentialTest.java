package dev.lake.sql.tpch;

import java.util.Map;

/** The 22 TPC-H queries against DuckDB over log tables written with {@code log.compression=small}. */
class SqlTpchCompressedDifferentialTest extends SqlTpchDifferentialTest {

  @Override
  Map<String, String> engineProperties() {
    return Map.of("log.block.rows", "4096", "log.compression", "small");
  }
}
