package dev.lake.exec.expr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.junit.jupiter.api.Test;

/**
 * ORs of equalities with constants on one column are tested as one IN list, and integer IN lists
 * on primitives; both answer exactly as the generic kernels do, NULLs included.
 */
class InListKernelTest {
  private static final SqlType BOOL = SqlType.of(SqlType.Kind.BOOL, true);
  private static final SqlType LONG = SqlType.of(SqlType.Kind.INT64, false);
  private static final SqlType TEXT = SqlType.of(SqlType.Kind.UTF8, false);

  @Test
  void orsOfEqualitiesAndIntegerInListsAnswerAsTheGenericKernels() {
    Random random = new Random(5);
    try (BufferAllocator allocator = new RootAllocator();
        BigIntVector longs = new BigIntVector("l", allocator);
        VarCharVector strings = new VarCharVector("s", allocator)) {
      int n = 700;
      longs.allocateNew(n);
      strings.allocateNew(n);
      for (int i = 0; i < n; i++) {
        if (i % 9 == 0) {
          longs.setNull(i);
          strings.setNull(i);
        } else {
          longs.set(i, random.nextInt(40) - 20);
          strings.setSafe(i, text(random).getBytes(StandardCharsets.UTF_8));
        }
      }
      longs.setValueCount(n);
      strings.setValueCount(n);
      try (VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(longs, strings))) {
        root.setRowCount(n);
        int[] selection = new int[n / 2];
        for (int i = 0; i < selection.length; i++) {
          selection[i] = i * 2;
        }
        Expr.Column l = new Expr.Column(0, "l", SqlType.of(SqlType.Kind.INT64, true));
        Expr.Column s = new Expr.Column(1, "s", SqlType.of(SqlType.Kind.UTF8, true));
        for (int t = 0; t < 300; t++) {
          // 2..40 constants: short lists compared whole, long ones searched; duplicates too.
          int count = 2 + random.nextInt(t % 2 == 0 ? 6 : 39);
          List<Expr.Literal> longValues = new ArrayList<>();
          List<Expr.Literal> stringValues = new ArrayList<>();
          for (int k = 0; k < count; k++) {
            longValues.add(new Expr.Literal((long) random.nextInt(40) - 20, LONG));
            stringValues.add(new Expr.Literal(text(random), TEXT));
          }
          boolean negated = random.nextBoolean();
          for (Batch batch : List.of(Batch.dense(root), new Batch(root, selection, selection.length))) {
            assertSame(batch, new LogicKernels.In(Kernel.compile(l), longValues, negated),
                Kernel.compile(new Expr.InList(l, longValues, negated, BOOL)));
            for (Expr column : List.of(l, s)) {
              List<Expr.Literal> values = column == l ? longValues : stringValues;
              List<Expr> equalities = values.stream().<Expr>map(v -> random.nextBoolean()
                  ? new Expr.Call(Expr.Op.EQ, List.of(column, v), BOOL)
                  : new Expr.Call(Expr.Op.EQ, List.of(v, column), BOOL)).toList();
              Kernel or = Kernel.compile(new Expr.Call(Expr.Op.OR, equalities, BOOL));
              Kernel generic = new LogicKernels.AndOr(false, equalities.stream()
                  .map(e -> ComparisonKernels.compare(Expr.Op.EQ,
                      Kernel.compile(((Expr.Call) e).args().get(0)), Kernel.compile(((Expr.Call) e).args().get(1))))
                  .toList());
              assertSame(batch, generic, or);
            }
          }
        }
        assertInstanceOf(LogicKernels.LongIn.class, Kernel.compile(new Expr.Call(Expr.Op.OR, List.of(
            new Expr.Call(Expr.Op.EQ, List.of(l, new Expr.Literal(1L, LONG)), BOOL),
            new Expr.Call(Expr.Op.EQ, List.of(new Expr.Literal(2L, LONG), l), BOOL)), BOOL)));
      }
    }
  }

  /**
   * {@code SUBSTRING(s FROM 1 FOR k) IN (...)} and {@code = ...} with constants of k characters are
   * tested on the leading bytes; they answer as substring-then-compare does, multi-byte
   * characters, short strings and NULLs included.
   */
  @Test
  void leadingSubstringInListsAnswerAsSubstringThenCompare() {
    Random random = new Random(9);
    String[] alphabet = {"1", "3", "é", "x", "€"};
    try (BufferAllocator allocator = new RootAllocator();
        VarCharVector strings = new VarCharVector("s", allocator)) {
      int n = 600;
      strings.allocateNew(n);
      for (int i = 0; i < n; i++) {
        if (i % 13 == 0) {
          strings.setNull(i);
        } else {
          strings.setSafe(i, word(random, alphabet, random.nextInt(40)).getBytes(StandardCharsets.UTF_8));
        }
      }
      strings.setValueCount(n);
      try (VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(strings))) {
        root.setRowCount(n);
        Expr.Column s = new Expr.Column(0, "s", SqlType.of(SqlType.Kind.UTF8, true));
        for (int t = 0; t < 300; t++) {
          long k = 1 + random.nextInt(t % 2 == 0 ? 3 : 20);
          Expr substring = substring(s, k, true);
          List<Expr.Literal> values = new ArrayList<>();
          for (int c = 0, count = 1 + random.nextInt(4); c < count; c++) {
            values.add(new Expr.Literal(word(random, alphabet, (int) k), TEXT));
          }
          boolean negated = random.nextBoolean();
          Kernel compiled = Kernel.compile(values.size() == 1
              ? new Expr.Call(negated ? Expr.Op.NE : Expr.Op.EQ, List.of(substring, values.getFirst()), BOOL)
              : new Expr.InList(substring, values, negated, BOOL));
          assertInstanceOf(StringKernels.Match.class, compiled);
          Kernel generic = new LogicKernels.In(Kernel.compile(substring), values, negated);
          assertSame(Batch.dense(root), generic, compiled);
        }
      }
    }
  }

  /**
   * String equality, IN, prefix and NOT tests used as WHERE terms select the same rows as their
   * boolean column does, over a column without NULLs (where they run their own loops), dense
   * and behind a selection, up to the last row of the buffer.
   */
  @Test
  void stringTestsSelectTheRowsTheirBooleanColumnKeeps() {
    Random random = new Random(11);
    try (BufferAllocator allocator = new RootAllocator();
        VarCharVector strings = new VarCharVector("s", allocator)) {
      int n = 900;
      strings.allocateNew(n);
      for (int i = 0; i < n; i++) {
        // The last rows short: their words would run past the buffer's end.
        String value = i >= n - 3 ? "v" + (i % 4) + "ab".substring(i % 2) : text(random);
        strings.setSafe(i, value.getBytes(StandardCharsets.UTF_8));
      }
      strings.setValueCount(n);
      // As a table's reader gives it: the data buffer exactly as long as the strings.
      VarCharVector exact = new VarCharVector("s", allocator);
      exact.loadFieldBuffers(new ArrowFieldNode(n, 0), List.of(strings.getValidityBuffer(),
          strings.getOffsetBuffer(), strings.getDataBuffer().slice(0, strings.getOffsetBuffer().getInt(4L * n))));
      try (VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(exact))) {
        root.setRowCount(n);
        int[] selection = new int[n / 3];
        for (int i = 0; i < selection.length; i++) {
          selection[i] = i * 3 + 2;
        }
        Expr.Column s = new Expr.Column(0, "s", SqlType.of(SqlType.Kind.UTF8, false));
        for (int t = 0; t < 400; t++) {
          List<Expr.Literal> values = new ArrayList<>();
          for (int k = 0, count = 1 + random.nextInt(t % 2 == 0 ? 1 : 4); k < count; k++) {
            values.add(new Expr.Literal(text(random), TEXT));
          }
          boolean negated = random.nextBoolean();
          String prefix = text(random).substring(0, 1 + random.nextInt(3));
          Expr term = switch (t % 3) {
            case 0 -> values.size() == 1
                ? new Expr.Call(negated ? Expr.Op.NE : Expr.Op.EQ, List.of(s, values.getFirst()), BOOL)
                : new Expr.InList(s, values, negated, BOOL);
            case 1 -> new Expr.Like(s, prefix + "%", null, negated, BOOL);
            default -> new Expr.InList(substring(s, 2, false),
                values.stream().map(v -> new Expr.Literal(((String) v.value()).substring(0, 2), TEXT)).toList(),
                negated, BOOL);
          };
          StringKernels.OnBytes kernel = (StringKernels.OnBytes) Kernel.compile(term);
          for (Batch batch : List.of(Batch.dense(root), new Batch(root, selection, selection.length))) {
            int[] viaColumn = new int[batch.count() + SelectionFilter.PADDING];
            int[] direct = new int[batch.count() + SelectionFilter.PADDING];
            int kept = new SelectionFilter.Generic(kernel).select(batch, viaColumn);
            assertEquals(kept, new SelectionFilter.OnBytes(kernel).select(batch, direct), term.toString());
            assertArrayEquals(Arrays.copyOf(viaColumn, kept), Arrays.copyOf(direct, kept), term.toString());
          }
        }
      }
    }
  }

  private static String word(Random random, String[] alphabet, int length) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < length; i++) {
      b.append(alphabet[random.nextInt(i < 2 ? 2 : alphabet.length)]);
    }
    return b.toString();
  }

  /** Strings of 3 to 39 bytes, told apart at both ends: one to four words, or past the word path. */
  private static String text(Random random) {
    return "v" + random.nextInt(4) + "-".repeat(random.nextInt(5) * 9) + (char) ('a' + random.nextInt(3));
  }

  private static void assertSame(Batch batch, Kernel expected, Kernel actual) {
    Col.Bools e = (Col.Bools) expected.eval(batch);
    Col.Bools a = (Col.Bools) actual.eval(batch);
    for (int i = 0; i < batch.count(); i++) {
      assertEquals(e.isNull(i), a.isNull(i), "null at row " + batch.row(i));
      if (!e.isNull(i)) {
        assertEquals(e.values[i], a.values[i], "value at row " + batch.row(i));
      }
    }
  }

  /** {@code substring(s, 1, k)} as the planner writes it: a call of the registry's function. */
  private static Expr substring(Expr.Column s, long k, boolean nullable) {
    List<SqlType> types = List.of(s.type(), LONG, LONG);
    return new Expr.Func(dev.lake.exec.fn.StringFunctions.SUBSTRING, dev.lake.exec.fn.Binding.of(types),
        List.of(s, new Expr.Literal(1L, LONG), new Expr.Literal(k, LONG)), SqlType.of(SqlType.Kind.UTF8, nullable));
  }
}
