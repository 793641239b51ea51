package dev.lake.metastore.dynamodb;

import java.util.Optional;

/**
 * How metastore keys map to the DynamoDB table (see docs/metastore.md).
 *
 * <p>Every item has partition key {@code pk} and sort key {@code sk} = the whole metastore key.
 * {@code pk} is the key up to and including its {@value #PARTITION_DEPTH}nd {@code '/'} (so
 * {@code tbl/<ns>/<name>} lives in partition {@code tbl/<ns>/}, {@code op/<tenant>/...} in
 * {@code op/<tenant>/}), or the whole key if it has fewer slashes ({@code gen/directory},
 * {@code lease/metasrv}). A scan of a prefix with at least two slashes is one Query of one
 * partition with {@code begins_with(sk, prefix)}. A shorter prefix spans partitions: every
 * partition is listed in the directory partition {@value #DIRECTORY_PARTITION} (its sort key is
 * the partition name), and since partition names are prefix-free except for whole keys that sort
 * before their own range, walking the directory in order and querying each partition yields the
 * keys in global byte order.
 */
final class DynamoDbLayout {

  static final String PK = "pk";
  static final String SK = "sk";
  /** The value, binary; absent on the tombstone of a fenced delete. */
  static final String VALUE = "v";
  /** The lease epoch of the item's last write, a number. */
  static final String EPOCH = "e";

  static final int PARTITION_DEPTH = 2;
  /** Not a valid metastore key (it has a space), so it never collides with one. */
  static final String DIRECTORY_PARTITION = " partitions";

  private DynamoDbLayout() {}

  static String partitionOf(String key) {
    int slash = -1;
    for (int i = 0; i < PARTITION_DEPTH; i++) {
      slash = key.indexOf('/', slash + 1);
      if (slash < 0) {
        return key;
      }
    }
    return key.substring(0, slash + 1);
  }

  /** The one partition every key with this prefix lives in, if the prefix decides it. */
  static Optional<String> partitionOfPrefix(String prefix) {
    String partition = partitionOf(prefix);
    return partition.endsWith("/") && prefix.startsWith(partition)
        && partition.chars().filter(c -> c == '/').count() == PARTITION_DEPTH
        ? Optional.of(partition) : Optional.empty();
  }
}
