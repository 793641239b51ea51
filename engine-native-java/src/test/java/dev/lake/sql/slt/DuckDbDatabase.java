package dev.lake.sql.slt;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * DuckDB in memory over JDBC, as a reference for the runner: one fresh database per script, one
 * thread, and {@code integer_division} on, so {@code /} of two integers truncates as in
 * PostgreSQL and SQLite (DuckDB's own {@code /} always gives a double).
 */
public final class DuckDbDatabase implements SltDatabase {
  private final Connection connection;

  public DuckDbDatabase() {
    try {
      connection = DriverManager.getConnection("jdbc:duckdb:");
      try (Statement s = connection.createStatement()) {
        s.execute("SET threads TO 1");
        s.execute("SET integer_division = true");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot start DuckDB in memory", e);
    }
  }

  @Override
  public Set<String> names() {
    return Set.of("postgresql", "duckdb");
  }

  @Override
  public void execute(String sql) throws Failure {
    try (Statement s = connection.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  @Override
  public List<List<Object>> query(String sql) throws Failure {
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      List<List<Object>> rows = new ArrayList<>();
      while (rs.next()) {
        List<Object> row = new ArrayList<>(columns);
        for (int c = 1; c <= columns; c++) {
          row.add(rs.getObject(c));
        }
        rows.add(row);
      }
      return rows;
    } catch (SQLException e) {
      throw failure(e);
    } catch (RuntimeException e) {
      throw new Failure(e.getClass().getSimpleName(), true, String.valueOf(e.getMessage()), e);
    }
  }

  private static Failure failure(SQLException e) {
    return new Failure(e.getSQLState() != null ? e.getSQLState() : "SQLException", false,
        String.valueOf(e.getMessage()).lines().findFirst().orElse(""), e);
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot close DuckDB", e);
    }
  }
}
