package dev.lake.engine;

import dev.lake.engine.expr.Expression;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a scan reads: the columns, in order; an optional pushed-down filter the engine may use to
 * prune; and an optional hint that no more than {@code limit} rows are needed.
 */
public record ScanRequest(List<String> columns, Optional<Expression> filter, OptionalLong limit) {

  public ScanRequest {
    columns = List.copyOf(columns);
    Objects.requireNonNull(filter, "filter");
    Objects.requireNonNull(limit, "limit");
    if (limit.isPresent() && limit.getAsLong() < 0) {
      throw new IllegalArgumentException("negative limit: " + limit.getAsLong());
    }
  }

  public static ScanRequest of(List<String> columns) {
    return new ScanRequest(columns, Optional.empty(), OptionalLong.empty());
  }

  public ScanRequest withFilter(Expression expression) {
    return new ScanRequest(columns, Optional.of(expression), limit);
  }

  public ScanRequest withLimit(long rows) {
    return new ScanRequest(columns, filter, OptionalLong.of(rows));
  }
}
