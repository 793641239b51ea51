package dev.lake.flight;

import dev.lake.sql.SqlDialectInfo;
import io.vertx.grpc.common.GrpcStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedCaseSensitivity;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.message.IpcOption;

/**
 * lake's answers to {@code GetSqlInfo}: what the server and its SQL dialect support, as JDBC's
 * {@code DatabaseMetaData} and ADBC's {@code getInfo} read them. Each flag says what lake does
 * today: DDL for schemas and tables (not catalogs), no transactions, unquoted identifiers folded
 * to lower case and quoted ones kept as written, the parser's keywords and the functions that
 * run ({@link SqlDialectInfo}), names of at most 128 characters.
 *
 * <p>An id lake has no value for is {@code NOT_FOUND} naming it, as Arrow's C++ and Go Flight
 * SQL servers answer; an empty request lists every value.
 */
final class SqlInfos {

  /** The registry's limit on schema and table names ({@code TableIdent}). */
  static final int MAX_NAME_LENGTH = 128;

  private final SqlInfoBuilder builder;
  private final Set<Integer> known;

  private SqlInfos(SqlInfoBuilder builder) {
    this.builder = builder;
    Capture all = new Capture();
    builder.send(List.of(), all);
    if (all.error != null) {
      throw new IllegalStateException("SqlInfo values do not encode", all.error);
    }
    this.known = Set.copyOf(all.ids);
  }

  /**
   * @param serverVersion reported as FLIGHT_SQL_SERVER_VERSION
   */
  static SqlInfos create(String serverVersion) {
    return new SqlInfos(new SqlInfoBuilder()
        .withFlightSqlServerName("lake")
        .withFlightSqlServerVersion(serverVersion)
        .withFlightSqlServerArrowVersion(arrowVersion())
        .withFlightSqlServerReadOnly(false)
        .withFlightSqlServerSql(true)
        .withFlightSqlServerSubstrait(false)
        .withFlightSqlServerTransaction(
            FlightSql.SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_NONE)
        .withFlightSqlServerCancel(false)
        .withFlightSqlServerBulkIngestion(true)
        .withFlightSqlServerBulkIngestionTransaction(false)
        // Prepared statement handles are stateless and never expire.
        .withFlightSqlServerStatementTimeout(0)
        .withFlightSqlServerTransactionTimeout(0)
        .withSqlDdlCatalog(false)
        .withSqlDdlSchema(true)
        .withSqlDdlTable(true)
        .withSqlIdentifierCase(SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_LOWERCASE)
        .withSqlIdentifierQuoteChar("\"")
        // Quoted identifiers keep their case and are compared as written.
        .withSqlQuotedIdentifierCase(SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_UNKNOWN)
        .withSqlAllTablesAreSelectable(true)
        .withSqlNullOrdering(FlightSql.SqlNullOrdering.SQL_NULLS_SORTED_HIGH)
        .withSqlKeywords(SqlDialectInfo.keywords().toArray(String[]::new))
        .withSqlNumericFunctions(SqlDialectInfo.numericFunctions().toArray(String[]::new))
        .withSqlStringFunctions(SqlDialectInfo.stringFunctions().toArray(String[]::new))
        .withSqlSystemFunctions(SqlDialectInfo.systemFunctions().toArray(String[]::new))
        .withSqlDatetimeFunctions(SqlDialectInfo.datetimeFunctions().toArray(String[]::new))
        .withSqlSearchStringEscape("\\")
        .withSqlExtraNameCharacters("")
        .withSqlSupportsColumnAliasing(true)
        .withSqlNullPlusNullIsNull(true)
        .withSqlSupportsTableCorrelationNames(true)
        .withSqlSupportsDifferentTableCorrelationNames(false)
        .withSqlSupportsExpressionsInOrderBy(true)
        .withSqlSupportsOrderByUnrelated(true)
        .withSqlSupportedGroupBy(FlightSql.SqlSupportedGroupBy.SQL_GROUP_BY_UNRELATED)
        .withSqlSupportsLikeEscapeClause(true)
        .withSqlSupportsNonNullableColumns(true)
        .withSqlSupportedGrammar(FlightSql.SupportedSqlGrammar.SQL_MINIMUM_GRAMMAR)
        .withSqlSupportsIntegrityEnhancementFacility(false)
        .withSqlOuterJoinSupportLevel(FlightSql.SqlOuterJoinsSupportLevel.SQL_LIMITED_OUTER_JOINS)
        .withSqlSchemaTerm("schema")
        .withSqlProcedureTerm("procedure")
        .withSqlCatalogTerm("catalog")
        .withSqlCatalogAtStart(true)
        .withSqlSelectForUpdateSupported(false)
        .withSqlStoredProceduresSupported(false)
        .withSqlSubQueriesSupported(FlightSql.SqlSupportedSubqueries.SQL_SUBQUERIES_IN_COMPARISONS,
            FlightSql.SqlSupportedSubqueries.SQL_SUBQUERIES_IN_EXISTS,
            FlightSql.SqlSupportedSubqueries.SQL_SUBQUERIES_IN_INS)
        .withSqlCorrelatedSubqueriesSupported(true)
        .withSqlSupportedUnions(FlightSql.SqlSupportedUnions.SQL_UNION,
            FlightSql.SqlSupportedUnions.SQL_UNION_ALL)
        .withSqlMaxTableNameLength(MAX_NAME_LENGTH)
        .withSqlDbSchemaNameLength(MAX_NAME_LENGTH)
        .withSqlTransactionsSupported(false)
        .withSqlDefaultTransactionIsolation(0)
        .withSqlSupportedTransactionsIsolationLevels()
        .withSqlDataDefinitionCausesTransactionCommit(false)
        .withSqlDataDefinitionsInTransactionsIgnored(false)
        .withSqlSavepointsSupported(false)
        .withSqlNamedParametersSupported(false)
        .withSqlBatchUpdatesSupported(false)
        .withSqlStoredFunctionsUsingCallSyntaxSupported(false)
        .withSqlSupportedResultSetTypes(
            FlightSql.SqlSupportedResultSetType.SQL_RESULT_SET_TYPE_FORWARD_ONLY));
  }

  /** The ids this server answers. */
  Set<Integer> known() {
    return known;
  }

  /**
   * The result stream for {@code requested} ids (every value when empty): the schema message and
   * its batches.
   *
   * @throws io.vertx.grpc.server.StatusException NOT_FOUND naming the ids lake has no value for
   */
  List<Flight.FlightData> answer(List<Integer> requested) {
    Set<Integer> unknown = new TreeSet<>();
    for (int id : requested) {
      if (!known.contains(id)) {
        unknown.add(id);
      }
    }
    if (!unknown.isEmpty()) {
      List<String> shown = unknown.stream().limit(8)
          .map(id -> Integer.toUnsignedString(id)).toList();
      throw ErrorMapper.status(GrpcStatus.NOT_FOUND, "no SqlInfo value for info id"
          + (unknown.size() == 1 ? " " : "s ") + String.join(", ", shown)
          + (unknown.size() > shown.size() ? " and " + (unknown.size() - shown.size()) + " more"
              : ""));
    }
    Capture capture = new Capture();
    builder.send(requested, capture);
    if (capture.error != null) {
      throw new IllegalStateException("GetSqlInfo failed", capture.error);
    }
    return capture.messages;
  }

  private static String arrowVersion() {
    String version = VectorSchemaRoot.class.getPackage().getImplementationVersion();
    return version == null ? "unknown" : version;
  }

  /**
   * Receives what {@link SqlInfoBuilder#send} would stream and keeps it as encoded messages (and
   * the ids it carried); the builder closes its own vectors right after, so each batch is copied
   * out at putNext.
   */
  private static final class Capture implements FlightProducer.ServerStreamListener {
    final List<Flight.FlightData> messages = new ArrayList<>();
    final List<Integer> ids = new ArrayList<>();
    VectorSchemaRoot root;
    Throwable error;

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public void setOnCancelHandler(Runnable handler) {}

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void start(VectorSchemaRoot root, DictionaryProvider dictionaries, IpcOption option) {
      this.root = root;
      messages.add(FlightIpc.schemaMessage(root.getSchema()));
    }

    @Override
    public void putNext() {
      UInt4Vector names = (UInt4Vector) root.getVector("info_name");
      for (int i = 0; i < root.getRowCount(); i++) {
        ids.add(names.get(i));
      }
      messages.add(FlightIpc.batchMessage(root));
    }

    @Override
    public void putNext(ArrowBuf metadata) {
      putNext();
    }

    @Override
    public void putMetadata(ArrowBuf metadata) {}

    @Override
    public void error(Throwable ex) {
      error = ex;
    }

    @Override
    public void completed() {}
  }
}
