package dev.lake.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeSystem;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.type.SqlTypeFactoryImpl;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.junit.jupiter.api.Test;

/**
 * Bare column names of many-way joins are qualified before validation, so the validator finds
 * each in one pass over the FROM clause instead of one pass per table (quadratic per name); the
 * work is shown by what is left to resolve, not by timing.
 */
class ColumnQualificationTest extends SqlFixture {

  private static final SqlTypeFactoryImpl TYPES = new SqlTypeFactoryImpl(RelDataTypeSystem.DEFAULT);

  /** Tables {@code s.t1..tn (a_i, b_i, k)}: {@code k} is in every table. */
  private static Map<List<String>, RelDataType> tables(int n) {
    Map<List<String>, RelDataType> tables = new HashMap<>();
    RelDataType integer = TYPES.createSqlType(SqlTypeName.INTEGER);
    for (int i = 1; i <= n; i++) {
      tables.put(List.of("s", "t" + i), TYPES.builder().add("a" + i, integer).add("b" + i, integer)
          .add("k", integer).build());
    }
    return tables;
  }

  private static String from(int n) {
    List<String> names = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      names.add("s.t" + i);
    }
    return " FROM " + String.join(", ", names);
  }

  /** The names of the identifiers in the SELECT list and WHERE of {@code select}, outside subqueries. */
  private static List<List<String>> names(SqlSelect select) {
    List<List<String>> names = new ArrayList<>();
    SqlBasicVisitor<Void> visitor = new SqlBasicVisitor<>() {
      @Override
      public Void visit(SqlIdentifier id) {
        names.add(id.names);
        return null;
      }

      @Override
      public Void visit(SqlCall call) {
        if (SqlKind.QUERY.contains(call.getKind())) {
          return null;
        }
        if (call.getKind() == SqlKind.AS) {
          names.add(List.of("AS", ((SqlIdentifier) call.operand(1)).getSimple()));
          return call.operand(0).accept(this);
        }
        return super.visit(call);
      }
    };
    select.getSelectList().accept(visitor);
    select.getWhere().accept(visitor);
    return names;
  }

  private static SqlSelect qualified(String sql, int tables) {
    Map<List<String>, RelDataType> rowTypes = tables(tables);
    return (SqlSelect) ColumnQualification.apply(SqlParsing.parse(sql), rowTypes::get);
  }

  @Test
  void everyBareNameOfASixtyFourWayJoinIsQualifiedByItsOneTable() {
    StringBuilder where = new StringBuilder();
    for (int i = 2; i <= 64; i++) {
      where.append(i == 2 ? " WHERE " : " AND ").append("a").append(i).append(" = b").append(i - 1);
    }
    SqlSelect select = qualified("SELECT a1, b64 + 1" + from(64) + where + " AND a7 IN (1, 2)", 64);
    List<List<String>> names = names(select);
    assertEquals(2 + 2 * 63 + 1, names.size());
    for (List<String> name : names) {
      assertEquals(2, name.size(), "a name left bare: " + name);
      assertEquals("t" + name.get(1).substring(1), name.get(0));
    }
  }

  @Test
  void sharedUnknownAliasAndSubqueryNamesAreLeftToTheValidator() {
    SqlSelect select = qualified("SELECT a1 AS b2, k, nothing" + from(12)
        + " WHERE a2 = b1 AND EXISTS (SELECT a3 FROM s.t3 WHERE a3 = a4)", 12);
    assertEquals(List.of(List.of("AS", "b2"), List.of("t1", "a1"), List.of("k"), List.of("nothing"),
        List.of("t2", "a2"), List.of("t1", "b1")), names(select));
  }

  @Test
  void joinsOfFewTablesAndUsingJoinsAreLeftAsWritten() {
    SqlSelect few = qualified("SELECT a1" + from(ColumnQualification.MIN_TABLES - 1) + " WHERE a2 = b1",
        ColumnQualification.MIN_TABLES - 1);
    assertEquals(List.of(List.of("a1"), List.of("a2"), List.of("b1")), names(few));
    SqlSelect using = qualified("SELECT a1" + from(11) + " JOIN s.t12 USING (k) WHERE a2 = b1", 12);
    assertEquals(List.of(List.of("a1"), List.of("a2"), List.of("b1")), names(using));
  }

  @Test
  void aManyWayJoinPlansAsItsHandQualifiedText() {
    InMemoryCatalog catalog = new InMemoryCatalog();
    int n = 16;
    StringBuilder bare = new StringBuilder("SELECT x1, x" + n);
    StringBuilder qualified = new StringBuilder("SELECT t1.x1, t" + n + ".x" + n);
    for (int i = 1; i <= n; i++) {
      InMemoryTable t = new InMemoryTable(new Schema(List.of(
          field("a" + i, new ArrowType.Int(32, true), false),
          field("b" + i, new ArrowType.Int(32, true), true),
          field("x" + i, ArrowType.Utf8.INSTANCE, true))), 4);
      t.appendRows(List.of(row(1, 1, "t" + i), row(2, 1, "u" + i)));
      catalog.put(new TableName("s", "t" + i), t);
    }
    bare.append(from(n));
    qualified.append(from(n));
    for (int i = 2; i <= n; i++) {
      String and = i == 2 ? " WHERE " : " AND ";
      bare.append(and).append("a").append(i).append(" = b").append(i - 1);
      qualified.append(and).append("t").append(i).append(".a").append(i).append(" = t").append(i - 1)
          .append(".b").append(i - 1);
    }
    bare.append(" AND a1 = 2");
    qualified.append(" AND t1.a1 = 2");
    SqlEngine engine = new SqlEngine(catalog);
    List<List<Object>> plan = rows(engine.prepare("EXPLAIN " + bare));
    assertEquals(rows(engine.prepare("EXPLAIN " + qualified)), plan);
    List<List<Object>> result = rows(engine.prepare(bare.toString()));
    assertEquals(List.of(List.<Object>of("u1", "t" + n)), result);
    assertTrue(plan.size() > n, "plan: " + plan);
  }

  @Test
  void aBareNameOfSeveralTablesIsStillReportedAsAmbiguous() {
    InMemoryCatalog catalog = new InMemoryCatalog();
    for (int i = 1; i <= 12; i++) {
      catalog.put(new TableName("s", "t" + i), new InMemoryTable(new Schema(List.of(
          field("a" + i, new ArrowType.Int(32, true), false),
          field("k", new ArrowType.Int(32, true), true))), 4));
    }
    SqlException e = org.junit.jupiter.api.Assertions.assertThrows(SqlException.class,
        () -> new SqlEngine(catalog).prepare("SELECT k" + from(12) + " WHERE a1 = a2"));
    assertEquals(SqlException.Kind.INVALID, e.kind());
    assertTrue(e.getMessage().contains("ambiguous"), e.getMessage());
  }
}
