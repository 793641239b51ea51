package dev.lake.metastore.dynamodb;

import static dev.lake.metastore.dynamodb.DynamoDbLayout.DIRECTORY_PARTITION;
import static dev.lake.metastore.dynamodb.DynamoDbLayout.EPOCH;
import static dev.lake.metastore.dynamodb.DynamoDbLayout.PK;
import static dev.lake.metastore.dynamodb.DynamoDbLayout.SK;
import static dev.lake.metastore.dynamodb.DynamoDbLayout.VALUE;

import dev.lake.metastore.ContinuationTokens;
import dev.lake.metastore.Fence;
import dev.lake.metastore.FencedException;
import dev.lake.metastore.Keys;
import dev.lake.metastore.MetaStore;
import dev.lake.metastore.MetaStoreException;
import dev.lake.metastore.ScanPage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * The production {@link MetaStore}: one DynamoDB table laid out as {@link DynamoDbLayout} says.
 * Reads are strongly consistent; every write is one conditional request whose condition is both
 * the compare-and-set and the fence ({@code e <= :epoch}), so no transaction is needed. When a
 * condition fails, one consistent read tells a lost compare-and-set from a fenced write: epochs
 * never go down, so an item epoch above the writer's proves the write is fenced.
 *
 * <p>The table is never created here; {@code lake metastore init} (see {@link DynamoDbTables})
 * does that explicitly.
 */
public final class DynamoDbMetaStore implements MetaStore {

  private static final String CREATE_CONDITION =
      "attribute_not_exists(#v) AND (attribute_not_exists(#e) OR #e <= :epoch)";
  private static final String REPLACE_CONDITION = "#v = :expected AND #e <= :epoch";
  private static final Map<String, String> NAMES = Map.of("#v", VALUE, "#e", EPOCH);
  /** Directory entries read at once by a scan that spans partitions. */
  private static final int DIRECTORY_PAGE = 100;

  private final DynamoDbClient client;
  private final String table;
  private final String description;
  /** Partitions this process has already listed in the directory partition. */
  private final Set<String> registeredPartitions = ConcurrentHashMap.newKeySet();

  private DynamoDbMetaStore(DynamoDbClient client, DynamoDbSettings settings) {
    this.client = client;
    this.table = settings.table();
    this.description = settings.describe();
  }

  /**
   * Connects to an existing table.
   *
   * @throws MetaStoreException if the table does not exist (naming the init command) or has
   *     another key schema, or DynamoDB cannot be reached
   */
  public static DynamoDbMetaStore open(DynamoDbSettings settings) {
    DynamoDbClient client = settings.newClient();
    try {
      DynamoDbTables.checkExisting(client, settings);
      return new DynamoDbMetaStore(client, settings);
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  @Override
  public Optional<byte[]> get(String key) {
    Keys.checkKey(key);
    return read(key).flatMap(item -> Optional.ofNullable(item.get(VALUE)))
        .map(v -> v.b().asByteArray());
  }

  @Override
  public ScanPage scan(String prefix, Optional<String> continuation, int limit) {
    Keys.checkPrefix(prefix);
    Keys.checkPageSize(limit);
    Optional<String> after = continuation.map(token -> ContinuationTokens.decode(prefix, token));
    // One entry more than the page, so a page is followed by a continuation only if more exist.
    List<ScanPage.Entry> entries = new ArrayList<>(limit + 1);
    Optional<String> single = DynamoDbLayout.partitionOfPrefix(prefix);
    try {
      if (single.isPresent()) {
        queryPartition(single.get(), prefix, after, entries, limit + 1);
      } else {
        Optional<String> lastPartition = Optional.empty();
        if (after.isPresent()) {
          String partition = DynamoDbLayout.partitionOf(after.get());
          queryPartition(partition, prefix, after, entries, limit + 1);
          lastPartition = Optional.of(partition);
        }
        List<String> partitions = List.of();
        int next = 0;
        while (entries.size() <= limit) {
          if (next == partitions.size()) {
            partitions = partitionsAfter(prefix, lastPartition);
            next = 0;
            if (partitions.isEmpty()) {
              break;
            }
          }
          String partition = partitions.get(next++);
          queryPartition(partition, prefix, Optional.empty(), entries, limit + 1);
          lastPartition = Optional.of(partition);
        }
      }
    } catch (SdkException e) {
      throw failure("scan prefix '" + prefix + "'", e);
    }
    if (entries.size() <= limit) {
      return new ScanPage(entries, Optional.empty());
    }
    entries.removeLast();
    return new ScanPage(entries,
        Optional.of(ContinuationTokens.encode(prefix, entries.getLast().key())));
  }

  @Override
  public boolean compareAndSet(String key, Optional<byte[]> expected, byte[] value, Fence fence) {
    Keys.checkKey(key);
    Keys.checkValue(key, value);
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(fence, "fence");
    Map<String, AttributeValue> values = new HashMap<>();
    values.put(":epoch", number(fence.epoch()));
    expected.ifPresent(bytes -> values.put(":expected", binary(bytes)));
    Map<String, AttributeValue> item = itemKey(key);
    item.put(VALUE, binary(value));
    item.put(EPOCH, number(fence.epoch()));
    try {
      registerPartition(DynamoDbLayout.partitionOf(key));
      client.putItem(b -> b.tableName(table).item(item)
          .conditionExpression(expected.isEmpty() ? CREATE_CONDITION : REPLACE_CONDITION)
          .expressionAttributeNames(NAMES).expressionAttributeValues(values));
      return true;
    } catch (ConditionalCheckFailedException e) {
      return refused(key, fence);
    } catch (SdkException e) {
      throw failure("compare-and-set '" + key + "'", e);
    }
  }

  @Override
  public boolean deleteIfEquals(String key, byte[] expected, Fence fence) {
    Keys.checkKey(key);
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(fence, "fence");
    Map<String, AttributeValue> values = Map.of(":epoch", number(fence.epoch()),
        ":expected", binary(expected));
    try {
      if (fence.epoch() == 0) {
        client.deleteItem(b -> b.tableName(table).key(itemKey(key))
            .conditionExpression(REPLACE_CONDITION)
            .expressionAttributeNames(NAMES).expressionAttributeValues(values));
      } else {
        // The tombstone keeps the epoch, so an older leader cannot re-create the key.
        client.updateItem(b -> b.tableName(table).key(itemKey(key))
            .updateExpression("REMOVE #v SET #e = :epoch")
            .conditionExpression(REPLACE_CONDITION)
            .expressionAttributeNames(NAMES).expressionAttributeValues(values));
      }
      return true;
    } catch (ConditionalCheckFailedException e) {
      return refused(key, fence);
    } catch (SdkException e) {
      throw failure("delete '" + key + "'", e);
    }
  }

  @Override
  public void close() {
    client.close();
  }

  @Override
  public String toString() {
    return "DynamoDbMetaStore[" + description + "]";
  }

  /** A condition failed: fenced if the item now carries a newer epoch, else a lost CAS. */
  private boolean refused(String key, Fence fence) {
    Optional<Map<String, AttributeValue>> item = read(key);
    if (item.isPresent() && item.get().containsKey(EPOCH)) {
      long itemEpoch = Long.parseLong(item.get().get(EPOCH).n());
      if (!fence.admits(itemEpoch)) {
        throw new FencedException(key, fence.epoch(), itemEpoch);
      }
    }
    return false;
  }

  private Optional<Map<String, AttributeValue>> read(String key) {
    try {
      var response = client.getItem(b -> b.tableName(table).key(itemKey(key)).consistentRead(true));
      return response.hasItem() && !response.item().isEmpty()
          ? Optional.of(response.item()) : Optional.empty();
    } catch (SdkException e) {
      throw failure("get '" + key + "'", e);
    }
  }

  /**
   * Lists the key's partition in the directory before the first write to it, so a cross-partition
   * scan can find it; an entry without items is harmless, so a crash in between loses nothing.
   */
  private void registerPartition(String partition) {
    if (registeredPartitions.contains(partition)) {
      return;
    }
    client.putItem(b -> b.tableName(table).item(Map.of(
        PK, AttributeValue.fromS(DIRECTORY_PARTITION), SK, AttributeValue.fromS(partition))));
    registeredPartitions.add(partition);
  }

  /** The next few partitions after {@code after} whose names start with {@code prefix}, in order. */
  private List<String> partitionsAfter(String prefix, Optional<String> after) {
    Map<String, AttributeValue> values = new HashMap<>();
    values.put(":pk", AttributeValue.fromS(DIRECTORY_PARTITION));
    Map<String, String> names = new HashMap<>(Map.of("#pk", PK));
    String condition = "#pk = :pk";
    if (!prefix.isEmpty()) {
      values.put(":prefix", AttributeValue.fromS(prefix));
      names.put("#sk", SK);
      condition += " AND begins_with(#sk, :prefix)";
    }
    QueryRequest.Builder request = QueryRequest.builder().tableName(table)
        .keyConditionExpression(condition)
        .expressionAttributeNames(names)
        .expressionAttributeValues(values)
        .consistentRead(true)
        .limit(DIRECTORY_PAGE);
    after.ifPresent(partition -> request.exclusiveStartKey(Map.of(
        PK, AttributeValue.fromS(DIRECTORY_PARTITION), SK, AttributeValue.fromS(partition))));
    QueryResponse response = client.query(request.build());
    return response.items().stream().map(item -> item.get(SK).s()).toList();
  }

  /** Appends the live items of one partition with the prefix, after {@code after}, up to {@code want}. */
  private void queryPartition(String partition, String prefix, Optional<String> after,
      List<ScanPage.Entry> entries, int want) {
    Map<String, AttributeValue> values = new HashMap<>();
    values.put(":pk", AttributeValue.fromS(partition));
    Map<String, String> names = new HashMap<>(Map.of("#pk", PK, "#v", VALUE));
    String condition = "#pk = :pk";
    if (!partition.startsWith(prefix)) {
      values.put(":prefix", AttributeValue.fromS(prefix));
      names.put("#sk", SK);
      condition += " AND begins_with(#sk, :prefix)";
    }
    Map<String, AttributeValue> start = after
        .map(key -> Map.of(PK, AttributeValue.fromS(partition), SK, AttributeValue.fromS(key)))
        .orElse(null);
    do {
      QueryResponse response = client.query(QueryRequest.builder().tableName(table)
          .keyConditionExpression(condition)
          .filterExpression("attribute_exists(#v)")
          .expressionAttributeNames(names)
          .expressionAttributeValues(values)
          .consistentRead(true)
          .exclusiveStartKey(start)
          .limit(want - entries.size())
          .build());
      for (Map<String, AttributeValue> item : response.items()) {
        entries.add(new ScanPage.Entry(item.get(SK).s(), item.get(VALUE).b().asByteArray()));
      }
      start = response.hasLastEvaluatedKey() && !response.lastEvaluatedKey().isEmpty()
          ? response.lastEvaluatedKey() : null;
    } while (start != null && entries.size() < want);
  }

  private static Map<String, AttributeValue> itemKey(String key) {
    Map<String, AttributeValue> item = new HashMap<>();
    item.put(PK, AttributeValue.fromS(DynamoDbLayout.partitionOf(key)));
    item.put(SK, AttributeValue.fromS(key));
    return item;
  }

  private static AttributeValue binary(byte[] bytes) {
    return AttributeValue.fromB(SdkBytes.fromByteArray(bytes));
  }

  private static AttributeValue number(long n) {
    return AttributeValue.fromN(Long.toString(n));
  }

  private MetaStoreException failure(String what, SdkException e) {
    return new MetaStoreException("DynamoDB " + description + " failed to " + what + ": "
        + e.getMessage(), e);
  }
}
