package dev.lake.exec.fn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lake.exec.SqlType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class FunctionRegistryTest {
  private static final SqlType INT = SqlType.of(SqlType.Kind.INT32, false);
  private static final SqlType TEXT = SqlType.of(SqlType.Kind.UTF8, true);
  private static final FunctionRegistry REGISTRY = FunctionRegistry.standard();

  /** Adding a function is one definition and one golden file: a function no golden file calls fails here. */
  @Test
  void everyFunctionIsCalledInAGoldenFile() throws IOException {
    StringBuilder golden = new StringBuilder();
    try (Stream<Path> files = Files.list(Path.of("src/test/resources/slt/functions"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".slt")).toList()) {
        golden.append(Files.readString(f).toLowerCase(Locale.ROOT));
      }
    }
    List<String> missing = new ArrayList<>();
    List<RegisteredFunction> all = new ArrayList<>(REGISTRY.functions());
    all.addAll(REGISTRY.aggregates());
    for (RegisteredFunction f : all) {
      List<String> names = new ArrayList<>(f.aliases());
      names.add(f.name());
      for (String name : names) {
        String call = name.equals("||") ? "||" : name.equals("ilike") ? " ilike " : name + "(";
        if (golden.indexOf(call) < 0) {
          missing.add(name);
        }
      }
    }
    assertEquals(List.of(), missing, "functions no golden file under slt/functions calls");
  }

  @Test
  void aggregatesAreLookedUpApartFromScalarsAndResolveTheirSignatures() {
    assertEquals(StatisticsAggregates.STDDEV_SAMP, REGISTRY.lookupAggregate("STDDEV").orElseThrow());
    assertTrue(REGISTRY.lookup("stddev").isEmpty());
    SqlType int32 = SqlType.of(SqlType.Kind.INT32, false);
    FunctionRegistry.AggregateResolution r = FunctionRegistry.resolve(StatisticsAggregates.VAR_POP,
        Binding.of(List.of(int32))).orElseThrow();
    assertEquals(SqlType.Kind.FLOAT64, r.binding().type(0).kind());
    assertTrue(r.result().nullable(), "a variance of no rows is NULL");
    assertTrue(FunctionRegistry.resolve(BooleanAggregates.BOOL_OR, Binding.of(List.of(int32))).isEmpty());
    assertEquals("stddev_pop", REGISTRY.closestNames("stdev_pop", List.of()).getFirst());
  }

  @Test
  void lookupIgnoresCaseAndKnowsAliases() {
    assertEquals(StringFunctions.CHAR_LENGTH, REGISTRY.lookup("LENGTH").orElseThrow());
    assertEquals(StringFunctions.CHAR_LENGTH, REGISTRY.lookup("character_length").orElseThrow());
    assertTrue(REGISTRY.lookup("no_such_function").isEmpty());
  }

  @Test
  void resolutionConvertsArgumentsToTheFirstSignatureThatTakesThem() {
    var r = FunctionRegistry.resolve(StringFunctions.LPAD, Binding.of(List.of(TEXT, INT))).orElseThrow();
    assertEquals(List.of(TEXT, SqlType.of(SqlType.Kind.INT64, false)), r.binding().types());
    assertEquals(TEXT, r.result());
    assertTrue(FunctionRegistry.resolve(StringFunctions.LPAD, Binding.of(List.of(TEXT, TEXT))).isEmpty());
    assertTrue(FunctionRegistry.resolve(StringFunctions.LPAD, Binding.of(List.of(TEXT))).isEmpty());
  }

  @Test
  void sameParametersMeetInTheirCommonType() {
    SqlType decimal = SqlType.decimal(5, 2, false);
    var r = FunctionRegistry.resolve(ComparisonFunctions.GREATEST, Binding.of(List.of(INT, decimal))).orElseThrow();
    assertEquals(SqlType.decimal(12, 2, false), r.result());
    assertTrue(FunctionRegistry.resolve(ComparisonFunctions.GREATEST, Binding.of(List.of(INT, TEXT))).isEmpty());
  }

  @Test
  void strictFunctionsAreNullableOnlyWhenAnArgumentIs() {
    var notNull = FunctionRegistry.resolve(MathFunctions.ABS, Binding.of(List.of(INT))).orElseThrow();
    assertEquals(INT, notNull.result());
    var nullable = FunctionRegistry.resolve(MathFunctions.ABS, Binding.of(List.of(INT.withNullable(true)))).orElseThrow();
    assertTrue(nullable.result().nullable());
    var concat = FunctionRegistry.resolve(StringFunctions.CONCAT, Binding.of(List.of(TEXT, TEXT))).orElseThrow();
    assertEquals(TEXT.withNullable(false), concat.result());
  }

  @Test
  void roundOfADecimalToConstantPlacesHasThatScale() {
    SqlType price = SqlType.decimal(10, 4, true);
    Binding two = Binding.of(List.of(price, SqlType.of(SqlType.Kind.INT64, false))).withConstant(1, 2L);
    assertEquals(SqlType.decimal(9, 2, true), FunctionRegistry.resolve(MathFunctions.ROUND, two).orElseThrow().result());
    Binding unknown = Binding.of(List.of(price, SqlType.of(SqlType.Kind.INT64, false)));
    assertEquals(price, FunctionRegistry.resolve(MathFunctions.ROUND, unknown).orElseThrow().result());
  }

  @Test
  void closestNamesAreByEditDistance() {
    assertEquals(List.of("length"), REGISTRY.closestNames("lenght", List.of()).subList(0, 1));
    assertTrue(REGISTRY.closestNames("uper", List.of()).contains("upper"));
    assertEquals(List.of(), REGISTRY.closestNames("frobnicate", List.of()));
    assertTrue(REGISTRY.closestNames("cuont", List.of("count")).contains("count"));
    assertEquals(2, FunctionRegistry.editDistance("lenght", "length"));
  }

  @Test
  void twoFunctionsOfOneNameAreRefused() {
    FunctionRegistry.Builder b = new FunctionRegistry.Builder().add(StringFunctions.UPPER);
    assertThrows(IllegalStateException.class, () -> b.add(StringFunctions.UPPER));
  }

  @Test
  void signaturesDescribeThemselvesForMessages() {
    assertEquals("lpad(VARCHAR, BIGINT), lpad(VARCHAR, BIGINT, VARCHAR)",
        FunctionRegistry.describeSignatures(StringFunctions.LPAD));
    assertEquals("concat(ANY...)", FunctionRegistry.describeSignatures(StringFunctions.CONCAT));
    assertEquals("greatest(ANYCOMPATIBLE...)", FunctionRegistry.describeSignatures(ComparisonFunctions.GREATEST));
  }

  @Test
  void aPatternThatReadsWithoutEndFailsInsteadOfHoldingItsWorker() {
    RegexFunctions.Bounded text = new RegexFunctions.Bounded("ab", "regexp_like");
    dev.lake.exec.ExecutionException e = assertThrows(dev.lake.exec.ExecutionException.class, () -> {
      for (long i = 0; i <= RegexFunctions.Bounded.MAX_READS; i++) {
        text.charAt((int) (i & 1));
      }
    });
    assertTrue(e.getMessage().startsWith("regexp_like: the pattern needs more than"), e.getMessage());
  }
}
