package dev.lake.catalog;

/**
 * What one {@link Catalog#maintain} page did.
 *
 * @param tables tables maintained
 * @param advanced tables whose registry pointer moved to a version maintenance committed
 * @param more whether tables remain in the current pass (call again); false when it reached the
 *     end or stopped, the next call after the end starts from the beginning
 */
public record MaintenancePass(int tables, int advanced, boolean more) {}
