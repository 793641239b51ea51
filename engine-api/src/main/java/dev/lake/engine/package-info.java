/**
 * The storage engine SPI: what the query engine and the catalog need of a table format, and the
 * immutable values that cross it. Arrow types only; no engine's own types.
 */
package dev.lake.engine;
