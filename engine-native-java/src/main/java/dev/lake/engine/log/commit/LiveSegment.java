package dev.lake.engine.log.commit;

/** A segment live in some version, with the version that added it (for error messages). */
public record LiveSegment(SegmentRef ref, long addedIn) {}
