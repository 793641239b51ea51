/**
 * The {@code log} table format: immutable columnar segment files under {@code data/}, an
 * append-only commit log under {@code _log/} whose entries are created put-if-absent (one version
 * per append or compaction), checkpoints under {@code _checkpoints/} and the retention floor under
 * {@code _expired/}, on local disk or S3 behind {@link dev.lake.engine.log.store.ObjectStore}. See
 * {@link dev.lake.engine.log.segment.SegmentFile}, {@link dev.lake.engine.log.commit.CommitLog} and
 * {@link dev.lake.engine.log.Maintenance}.
 */
package dev.lake.engine.log;
