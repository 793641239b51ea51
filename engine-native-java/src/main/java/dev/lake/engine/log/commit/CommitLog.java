package dev.lake.engine.log.commit;

import dev.lake.engine.log.store.ObjectStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metadata objects of a table, all immutable and all created put-if-absent:
 *
 * <pre>
 *   _log/&lt;20-digit version&gt;.json           one entry per version; exactly one writer wins each
 *   _checkpoints/&lt;20-digit version&gt;.json   the replayed state at that version
 *   _expired/&lt;20-digit version&gt;            retention floor: versions below the largest are expired
 * </pre>
 */
public final class CommitLog {

  public static final String LOG = "_log/";
  public static final String CHECKPOINTS = "_checkpoints/";
  public static final String EXPIRED = "_expired/";
  private static final Pattern ENTRY = Pattern.compile("_log/(\\d{20})\\.json");
  private static final Pattern CHECKPOINT = Pattern.compile("_checkpoints/(\\d{20})\\.json");
  private static final Pattern EXPIRY = Pattern.compile("_expired/(\\d{20})");

  private final ObjectStore store;

  public CommitLog(ObjectStore store) {
    this.store = store;
  }

  public ObjectStore store() {
    return store;
  }

  /** The version a commit log entry's or checkpoint's key names, or -1 for another key. */
  public static long versionOf(String key) {
    java.util.regex.Matcher m = ENTRY.matcher(key);
    if (m.matches()) {
      return Long.parseLong(m.group(1));
    }
    m = CHECKPOINT.matcher(key);
    return m.matches() ? Long.parseLong(m.group(1)) : -1;
  }

  public static String entryKey(long version) {
    return LOG + twentyDigits(version) + ".json";
  }

  public static String checkpointKey(long version) {
    return CHECKPOINTS + twentyDigits(version) + ".json";
  }

  /** {@code version} as {@code %020d} formats it, without the formatter (every table lookup reads a key). */
  private static String twentyDigits(long version) {
    if (version < 0) {
      return String.format("%020d", version);
    }
    String digits = Long.toString(version);
    return "0".repeat(20 - digits.length()) + digits;
  }

  static String expiryKey(long floor) {
    return EXPIRED + String.format("%020d", floor);
  }

  /** Versions of the entries after {@code after} (-1 for all), ascending. */
  public List<Long> entryVersions(long after) throws IOException {
    return versions(store.list(LOG, after < 0 ? null : entryKey(after)), ENTRY);
  }

  /** Versions that have a checkpoint, ascending. */
  public List<Long> checkpointVersions() throws IOException {
    return versions(store.list(CHECKPOINTS, null), CHECKPOINT);
  }

  /** The oldest version retention keeps: the largest expiry mark, or 0 if none. */
  public long retentionFloor() throws IOException {
    List<Long> marks = versions(store.list(EXPIRED, null), EXPIRY);
    return marks.isEmpty() ? 0 : marks.getLast();
  }

  /** Every expiry mark, ascending (only the largest counts). */
  public List<Long> expiryMarks() throws IOException {
    return versions(store.list(EXPIRED, null), EXPIRY);
  }

  private static List<Long> versions(List<ObjectStore.ObjectInfo> objects, Pattern pattern) {
    List<Long> out = new ArrayList<>();
    for (ObjectStore.ObjectInfo o : objects) {
      Matcher m = pattern.matcher(o.key());
      if (m.matches()) {
        out.add(Long.parseLong(m.group(1)));
      }
    }
    out.sort(null);
    return out;
  }

  /**
   * Reads the entry of {@code version}.
   *
   * @return empty if no entry was committed for it
   * @throws CorruptEntryException if the entry is there but damaged or names another version
   */
  public Optional<CommitEntry> read(long version) throws IOException {
    String key = entryKey(version);
    Optional<byte[]> bytes = store.get(key);
    if (bytes.isEmpty()) {
      return Optional.empty();
    }
    CommitEntry entry = EntryCodec.decode(key, bytes.get());
    if (entry.version() != version) {
      throw new CorruptEntryException("commit log entry", key, "records version " + entry.version(), null);
    }
    return Optional.of(entry);
  }

  /**
   * Creates the entry of {@code entry.version()} if no writer has yet.
   *
   * @return false if the version already exists (another writer won it); nothing was changed
   * @throws IOException if the storage failed; the entry may or may not have been created
   */
  public boolean tryCommit(CommitEntry entry) throws IOException {
    return store.putIfAbsent(entryKey(entry.version()), EntryCodec.encode(entry));
  }

  /** @return empty if there is no checkpoint at {@code version} */
  public Optional<Checkpoint> readCheckpoint(long version) throws IOException {
    String key = checkpointKey(version);
    Optional<byte[]> bytes = store.get(key);
    if (bytes.isEmpty()) {
      return Optional.empty();
    }
    Checkpoint c = EntryCodec.decodeCheckpoint(key, bytes.get());
    if (c.version() != version) {
      throw new CorruptEntryException("checkpoint", key, "records version " + c.version(), null);
    }
    return Optional.of(c);
  }

  /** Writes a checkpoint unless one exists for its version (any two describe the same state). */
  public void writeCheckpoint(Checkpoint checkpoint) throws IOException {
    store.putIfAbsent(checkpointKey(checkpoint.version()), EntryCodec.encode(checkpoint));
  }

  /** Records durably that versions below {@code floor} are expired. */
  public void markExpired(long floor) throws IOException {
    store.putIfAbsent(expiryKey(floor), new byte[0]);
  }

  public void deleteEntry(long version) throws IOException {
    store.delete(entryKey(version));
  }

  public void deleteCheckpoint(long version) throws IOException {
    store.delete(checkpointKey(version));
  }

  public void deleteExpiryMark(long floor) throws IOException {
    store.delete(expiryKey(floor));
  }
}
