package dev.lake.cli;

import dev.lake.metastore.MetaStoreException;
import dev.lake.metastore.dynamodb.DynamoDbSettings;
import dev.lake.metastore.dynamodb.DynamoDbTables;
import java.net.URI;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lake metastore}: administration of the metadata store. */
@Command(
    name = "metastore",
    mixinStandardHelpOptions = true,
    description = "Administers the metadata store (DynamoDB in production).",
    subcommands = {MetastoreCommand.Init.class})
final class MetastoreCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  @Command(
      name = "init",
      mixinStandardHelpOptions = true,
      description = {
        "Creates the DynamoDB table of the metastore and waits until it is active.",
        "",
        "On-demand capacity; key pk (HASH) + sk (RANGE); see docs/metastore.md. Servers never",
        "create it themselves. Running it again on an existing table changes nothing."
      })
  static final class Init implements Callable<Integer> {

    @Option(names = "--table", required = true, description = "DynamoDB table name.")
    String table;

    @Option(names = "--region", defaultValue = "${env:AWS_REGION}",
        description = "AWS region (default: $AWS_REGION).")
    String region;

    @Option(names = "--endpoint",
        description = "Endpoint URL, for a test server such as dynalite or a VPC endpoint.")
    URI endpoint;

    @Option(names = "--access-key",
        description = "Static access key (for test servers); default: the AWS credential chain.")
    String accessKey;

    @Option(names = "--secret-key", description = "Static secret key, with --access-key.")
    String secretKey;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      DynamoDbSettings settings;
      try {
        settings = new DynamoDbSettings(Optional.ofNullable(endpoint), region, table,
            Optional.ofNullable(accessKey), Optional.ofNullable(secretKey));
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("lake metastore init: " + e.getMessage());
        return 2;
      }
      try {
        DynamoDbTables.Outcome outcome = DynamoDbTables.create(settings);
        spec.commandLine().getOut().println(switch (outcome) {
          case CREATED -> "lake metastore init: created " + settings.describe();
          case ALREADY_EXISTS -> "lake metastore init: " + settings.describe()
              + " already exists with the metastore's key schema; nothing changed";
        });
        return 0;
      } catch (MetaStoreException e) {
        spec.commandLine().getErr().println("lake metastore init: " + e.getMessage());
        return 1;
      }
    }
  }
}
