package dev.lake.exec.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.lake.exec.Batch;
import dev.lake.exec.Col;
import dev.lake.exec.SqlType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

class LikeKernelTest {
  private static final String[] ALPHABET = {"a", "b", "é", "%", "\\", "x"};

  /** The byte-level kernel answers like the regular-expression one on random strings and patterns. */
  @Test
  void byteLikeAnswersLikeTheRegexLikeOnRandomPatternsAndStrings() {
    answersLikeTheRegexLike(6, 3000);
  }

  /** Strings longer than a vector: the search crosses several windows and the buffer's end. */
  @Test
  void byteLikeAnswersLikeTheRegexLikeOnLongStrings() {
    answersLikeTheRegexLike(300, 400);
  }

  private static void answersLikeTheRegexLike(int maxLength, int patterns) {
    Random random = new Random(42 + maxLength);
    try (BufferAllocator allocator = new RootAllocator();
        VarCharVector strings = new VarCharVector("s", allocator)) {
      int n = 500;
      strings.allocateNew(n);
      for (int i = 0; i < n; i++) {
        if (i % 37 == 0) {
          strings.setNull(i);
        } else {
          strings.setSafe(i, random(random, maxLength).getBytes(StandardCharsets.UTF_8));
        }
      }
      strings.setValueCount(n);
      try (VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(strings))) {
        root.setRowCount(n);
        int[] selection = new int[n / 2];
        for (int i = 0; i < selection.length; i++) {
          selection[i] = i * 2 + 1;
        }
        for (int t = 0; t < patterns; t++) {
          String pattern = random(random, 5).replace("\\", "");
          Character escape = t % 3 == 0 ? '\\' : null;
          if (escape != null && random.nextBoolean()) {
            pattern = pattern + "\\%";
          }
          boolean negated = t % 2 == 0;
          Expr.Column column = new Expr.Column(0, "s", SqlType.of(SqlType.Kind.UTF8, true));
          Kernel regex = new LogicKernels.Like(Kernel.compile(column), pattern, escape, negated);
          StringKernels.Like bytes = StringKernels.Like.of(0, pattern, escape, negated, regex);
          assertNotNull(bytes, pattern);
          // What the compiler picks: 'text%' patterns become leading-bytes matches.
          Kernel compiled = Kernel.compile(new Expr.Like(column, pattern, escape, negated, SqlType.of(SqlType.Kind.BOOL, true)));
          for (Batch batch : List.of(Batch.dense(root), new Batch(root, selection, selection.length))) {
            Col.Bools expected = (Col.Bools) regex.eval(batch);
            Col.Bools actual = (Col.Bools) bytes.eval(batch);
            Col.Bools chosen = (Col.Bools) compiled.eval(batch);
            // As a WHERE term the kernel selects rows itself: the rows the boolean column keeps.
            int[] viaColumn = new int[batch.count() + SelectionFilter.PADDING];
            int[] direct = new int[batch.count() + SelectionFilter.PADDING];
            int kept = new SelectionFilter.Generic(bytes).select(batch, viaColumn);
            assertEquals(kept, new SelectionFilter.OnBytes(bytes).select(batch, direct), pattern);
            assertEquals(Arrays.toString(Arrays.copyOf(viaColumn, kept)),
                Arrays.toString(Arrays.copyOf(direct, kept)), pattern);
            for (int i = 0; i < batch.count(); i++) {
              String why = "'" + strings.getObject(batch.row(i)) + "' LIKE '" + pattern + "' escape " + escape;
              assertEquals(expected.isNull(i), actual.isNull(i), why);
              assertEquals(expected.isNull(i), chosen.isNull(i), why);
              if (!expected.isNull(i)) {
                assertEquals(expected.values[i], actual.values[i], why);
                assertEquals(expected.values[i], chosen.values[i], "compiled " + why);
              }
            }
          }
        }
      }
    }
  }

  @Test
  void patternWithAnUnderscoreKeepsTheCharacterLevelKernel() {
    assertNull(StringKernels.Like.of(0, "a_c%", null, false, null));
    assertNotNull(StringKernels.Like.of(0, "a\\_c%", '\\', false, null));
  }

  private static String random(Random random, int maxLength) {
    StringBuilder b = new StringBuilder();
    int length = random.nextInt(maxLength + 1);
    for (int i = 0; i < length; i++) {
      b.append(ALPHABET[random.nextInt(ALPHABET.length)]);
    }
    return b.toString();
  }
}
