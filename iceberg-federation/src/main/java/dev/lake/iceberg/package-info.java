/** The read-only {@code iceberg} catalog: one external Iceberg REST catalog, scanned into Arrow. */
package dev.lake.iceberg;
