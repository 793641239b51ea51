package dev.lake.metastore.dynamodb;

import static dev.lake.metastore.dynamodb.DynamoDbLayout.PK;
import static dev.lake.metastore.dynamodb.DynamoDbLayout.SK;

import dev.lake.metastore.MetaStoreException;
import java.time.Duration;
import java.util.List;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/**
 * Creates the metastore's table: the explicit step behind {@code lake metastore init}. A server
 * never creates it implicitly, so a typo in a table name fails loudly instead of starting an
 * empty registry.
 */
public final class DynamoDbTables {

  /** What {@link #create} did. */
  public enum Outcome {
    /** The table was created and is active. */
    CREATED,
    /** A table of that name with the metastore's key schema already existed; nothing changed. */
    ALREADY_EXISTS
  }

  private static final List<KeySchemaElement> KEY_SCHEMA = List.of(
      KeySchemaElement.builder().attributeName(PK).keyType(KeyType.HASH).build(),
      KeySchemaElement.builder().attributeName(SK).keyType(KeyType.RANGE).build());
  private static final Duration ACTIVE_TIMEOUT = Duration.ofMinutes(5);

  private DynamoDbTables() {}

  /**
   * Creates the table (on-demand capacity, key schema {@code pk} HASH + {@code sk} RANGE, both
   * strings) and waits until it is active. Idempotent.
   *
   * @throws MetaStoreException if a table of that name exists with another key schema, or
   *     DynamoDB refuses or cannot be reached
   */
  public static Outcome create(DynamoDbSettings settings) {
    try (DynamoDbClient client = settings.newClient()) {
      Outcome outcome;
      try {
        client.createTable(b -> b.tableName(settings.table())
            .keySchema(KEY_SCHEMA)
            .attributeDefinitions(
                AttributeDefinition.builder().attributeName(PK)
                    .attributeType(ScalarAttributeType.S).build(),
                AttributeDefinition.builder().attributeName(SK)
                    .attributeType(ScalarAttributeType.S).build())
            .billingMode(BillingMode.PAY_PER_REQUEST));
        outcome = Outcome.CREATED;
      } catch (ResourceInUseException e) {
        outcome = Outcome.ALREADY_EXISTS;
      }
      awaitActive(client, settings);
      return outcome;
    } catch (SdkException e) {
      throw new MetaStoreException("cannot create DynamoDB " + settings.describe() + ": "
          + e.getMessage(), e);
    }
  }

  /** Checks that the table exists, is usable and has the metastore's key schema. */
  static void checkExisting(DynamoDbClient client, DynamoDbSettings settings) {
    TableDescription table;
    try {
      table = client.describeTable(b -> b.tableName(settings.table())).table();
    } catch (ResourceNotFoundException e) {
      throw new MetaStoreException("the metastore's DynamoDB " + settings.describe()
          + " does not exist; create it once with `lake metastore init --table "
          + settings.table() + " --region " + settings.region()
          + settings.endpoint().map(uri -> " --endpoint " + uri).orElse("") + "`", e);
    } catch (SdkException e) {
      throw new MetaStoreException("cannot reach DynamoDB " + settings.describe() + ": "
          + e.getMessage(), e);
    }
    if (!KEY_SCHEMA.equals(table.keySchema())) {
      throw new MetaStoreException("DynamoDB " + settings.describe() + " has key schema "
          + table.keySchema() + ", not the metastore's (pk HASH, sk RANGE); is it another"
          + " application's table?");
    }
  }

  private static void awaitActive(DynamoDbClient client, DynamoDbSettings settings) {
    long deadline = System.nanoTime() + ACTIVE_TIMEOUT.toNanos();
    while (true) {
      TableDescription table = client.describeTable(b -> b.tableName(settings.table())).table();
      if (!KEY_SCHEMA.equals(table.keySchema())) {
        throw new MetaStoreException("DynamoDB " + settings.describe() + " already exists with"
            + " key schema " + table.keySchema() + ", not the metastore's (pk HASH, sk RANGE)");
      }
      if (table.tableStatus() == TableStatus.ACTIVE) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new MetaStoreException("DynamoDB " + settings.describe() + " is still "
            + table.tableStatusAsString() + " after " + ACTIVE_TIMEOUT.toMinutes() + " minutes");
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new MetaStoreException("interrupted waiting for " + settings.describe()
            + " to become active", e);
      }
    }
  }
}
