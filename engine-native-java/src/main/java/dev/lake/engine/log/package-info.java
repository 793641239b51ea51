/**
 * The {@code log} table format: immutable columnar segment files under {@code data/} and an
 * append-only commit log under {@code _log/} whose entries are created put-if-absent, one version
 * per append. See {@link dev.lake.engine.log.segment.SegmentFile} and {@link
 * dev.lake.engine.log.commit.CommitLog} for the file layouts.
 */
package dev.lake.engine.log;
