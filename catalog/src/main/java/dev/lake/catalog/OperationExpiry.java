package dev.lake.catalog;

/**
 * What one {@link Catalog#expireOperations} page did.
 *
 * @param examined operation records read
 * @param removed finished records older than the retention horizon that were deleted
 * @param more whether records remain after this page in the current pass (call again); false
 *     when the pass reached the end, the next call starts from the beginning
 */
public record OperationExpiry(int examined, int removed, boolean more) {}
