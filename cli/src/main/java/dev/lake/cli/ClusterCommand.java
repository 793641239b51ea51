package dev.lake.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lake.metastore.MetaStoreException;
import dev.lake.metastore.dynamodb.DynamoDbMetaStore;
import dev.lake.metastore.dynamodb.DynamoDbSettings;
import dev.lake.metastore.dynamodb.DynamoDbTables;
import dev.lake.metastore.dynamodb.Dynalite;
import dev.lake.metastore.lease.LeaseElection;
import dev.lake.metastore.lease.LeaseRecord;
import dev.lake.metastore.lease.LeaseSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code lake cluster}: the production shape on loopback, for trying and testing it: a DynamoDB
 * server (dynalite), two {@code lake metasrv} replicas sharing it, and N {@code lake query}
 * replicas. {@code <data-dir>/cluster.json} names every process; {@code status} and {@code stop}
 * read it.
 */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description = {
      "Runs a production-shaped lake cluster on loopback until Ctrl-C: dynalite (a DynamoDB",
      "server, installed under .tools/ when missing), 2 lake metasrv, N lake query sharing",
      "<data-dir>/keyring.json, and nginx balancing gRPC over them (when installed).",
      "",
      "Prints the client endpoint and writes <data-dir>/cluster.json naming every process.",
      "Logs go to <data-dir>/logs/. Plaintext, no authentication (loopback only) unless",
      "--secure, which puts TLS and bearer tokens on every hop, nginx included."
    },
    subcommands = {ClusterCommand.Status.class, ClusterCommand.Stop.class})
final class ClusterCommand implements Callable<Integer> {

  static final String TABLE = "lake";
  private static final String LEASE_KEY = "lease/metasrv";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> ROLES_FRONT_TO_BACK =
      List.of("balancer", "query", "metasrv", "metastore");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--data-dir", defaultValue = "${env:LAKE_DATA_DIR:-.lake/cluster}",
      description = "Where the metastore, tables and logs live (default: ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(names = "--queries", defaultValue = "2",
      description = "Query replicas to start (default: ${DEFAULT-VALUE}).")
  int queries;

  @Option(names = "--metasrvs", defaultValue = "2",
      description = "Metasrv replicas to start (default: ${DEFAULT-VALUE}).")
  int metasrvs;

  @Option(names = "--secure",
      description = "Generate a self-signed CA and certificate, a principals file with an admin"
          + " and a tenant token and a service token (under <data-dir>/secure); every member"
          + " then serves TLS only and authenticates every call. Prints the tokens and the CA"
          + " file; cluster.json records them (\"tls_ca\", \"tokens\").")
  boolean secure;

  @Override
  public Integer call() throws Exception {
    if (queries < 1 || metasrvs < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--queries and --metasrvs must be at least 1");
    }
    Path data = dataDir.toAbsolutePath().normalize();
    Path logs = Files.createDirectories(data.resolve("logs"));
    Optional<ClusterFile> running = ClusterFile.read(data).filter(ClusterFile::anyAlive);
    if (running.isPresent()) {
      System.err.println("lake cluster: a cluster is already running from " + data
          + " (see lake cluster status --data-dir " + data + ")");
      return 1;
    }
    List<Member> members = new ArrayList<>();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println("lake cluster: stopping");
      stopAll(members);
      stopped.countDown();
    }, "lake-cluster-shutdown"));
    try {
      ClusterSecurity security = secure ? ClusterSecurity.generate(data) : null;
      Dynalite dynalite = Dynalite.start(data.resolve("metastore"), logs.resolve("metastore.log"));
      members.add(new Member("metastore", dynalite.pid(), dynalite.port(),
          logs.resolve("metastore.log"), null, null));
      DynamoDbSettings settings = dynalite.settings(TABLE);
      DynamoDbTables.create(settings);
      ClusterFile.write(data, members, null, security);

      List<String> metasrvEndpoints = new ArrayList<>();
      for (int i = 1; i <= metasrvs; i++) {
        int port = freePort();
        String nodeId = "metasrv-" + i;
        Path log = logs.resolve(nodeId + ".log");
        List<String> arguments = new ArrayList<>(List.of("metasrv", "--data-dir", data.toString(),
            "--host", "127.0.0.1", "--port", Integer.toString(port), "--node-id", nodeId,
            "--metastore", "dynamodb", "--dynamodb-endpoint", dynalite.endpoint().toString(),
            "--dynamodb-table", TABLE, "--dynamodb-region", Dynalite.REGION,
            "--access-key", Dynalite.ACCESS_KEY, "--secret-key", Dynalite.SECRET_KEY));
        if (security != null) {
          arguments.addAll(security.metasrvArguments());
        }
        Process process = launch(log, arguments.toArray(String[]::new));
        members.add(new Member("metasrv", process.pid(), port, log, nodeId, process));
        metasrvEndpoints.add("127.0.0.1:" + port);
      }
      for (Member member : members) {
        awaitListening(member);
      }
      Path keyRing = keyRing(data);
      List<String> upstreams = new ArrayList<>();
      for (int i = 1; i <= queries; i++) {
        int port = freePort();
        Path log = logs.resolve("query-" + i + ".log");
        List<String> arguments = new ArrayList<>(List.of("query", "--data-dir", data.toString(),
            "--host", "127.0.0.1", "--port", Integer.toString(port),
            "--metasrv", String.join(",", metasrvEndpoints),
            "--key-ring", keyRing.toString(), "--audience", audience(data)));
        if (security != null) {
          arguments.addAll(security.queryArguments());
        }
        Process process = launch(log, arguments.toArray(String[]::new));
        members.add(new Member("query", process.pid(), port, log, "query-" + i, process));
        upstreams.add("127.0.0.1:" + port);
      }
      for (Member member : members) {
        awaitListening(member);
      }
      int clientPort = members.stream()
          .filter(m -> m.role().equals("query")).findFirst().orElseThrow().port();
      if (NginxBalancer.binary().isPresent()) {
        int port = freePort();
        Path log = logs.resolve("balancer.log");
        Process nginx = NginxBalancer.start(data.resolve("balancer"), port, upstreams,
            Optional.ofNullable(security).map(ClusterSecurity::balancerTls), log);
        Member balancer = new Member("balancer", nginx.pid(), port, log, "nginx", nginx);
        members.add(balancer);
        awaitListening(balancer);
        clientPort = port;
      } else {
        System.out.println("lake cluster: nginx is not installed (apt-get install nginx):"
            + " the endpoint is query-1 itself, with no balancer");
      }
      String address = "127.0.0.1:" + clientPort;
      String endpoint = (security != null ? "grpc+tls://" : "grpc://") + address;
      ClusterFile.write(data, members, endpoint, security);
      System.out.println("lake cluster: " + metasrvs + " metasrv, " + queries
          + " query replicas; logs in " + logs);
      System.out.println("lake cluster: endpoint " + endpoint);
      if (security == null) {
        System.out.println("lake cluster: JDBC URL jdbc:arrow-flight-sql://" + address
            + "/?useEncryption=false");
      } else {
        System.out.println("lake cluster: TLS CA " + security.certificates().caCertificate());
        System.out.println("lake cluster: admin token " + security.adminToken());
        System.out.println("lake cluster: tenant token " + security.tenantToken()
            + " (WRITER of namespace " + ClusterSecurity.TENANT_NAMESPACE + " only)");
        System.out.println("lake cluster: JDBC URL jdbc:arrow-flight-sql://" + address
            + "/?useEncryption=true&tlsRootCerts=" + security.certificates().caCertificate()
            + "&token=<token>");
      }
      System.out.println("lake cluster: " + data.resolve("cluster.json"));
      System.out.println("lake cluster: ready");
      System.out.flush();
    } catch (RuntimeException | IOException e) {
      System.err.println("lake cluster: " + e.getMessage());
      return 1; // the shutdown hook stops what was started
    }
    stopped.await();
    return 0;
  }

  /**
   * The cluster's key ring, {@code <data-dir>/keyring.json}, shared by its query replicas:
   * created (owner-only) on the first start, kept across restarts so tickets stay redeemable.
   */
  private static Path keyRing(Path data) throws IOException {
    Path file = data.resolve("keyring.json");
    if (!Files.exists(file)) {
      dev.lake.flight.ticket.KeyRing.generate("k1").write(file);
    }
    return file;
  }

  /** The audience tickets of this cluster are bound to: one per data directory. */
  static String audience(Path data) {
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
          .digest(data.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return "lake-cluster-" + java.util.HexFormat.of().formatHex(digest, 0, 6);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** One member process of the cluster. */
  record Member(String role, long pid, int port, Path log, String nodeId, Process process) {}

  private static Process launch(Path log, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
    command.add("-jar");
    command.add(ownJar().toString());
    command.addAll(List.of(args));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
  }

  private static Path ownJar() {
    try {
      Path jar = Path.of(Lake.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (!jar.toString().endsWith(".jar")) {
        throw new IllegalStateException("lake cluster runs its members from the packaged"
            + " lake-cli.jar; run it through ./lake (found classes at " + jar + ")");
      }
      return jar;
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot find lake's own jar", e);
    }
  }

  /** Waits until the member accepts connections on its port (or fails naming its log). */
  private static void awaitListening(Member member) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      if (member.process() != null && !member.process().isAlive()) {
        throw new IllegalStateException(member.role() + " " + member.nodeId() + " exited with "
            + member.process().exitValue() + "; see " + member.log() + ":\n" + tail(member.log()));
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", member.port()), 1_000);
        return;
      } catch (IOException notYet) {
        sleep(100);
      }
    }
    throw new IllegalStateException(member.role() + " " + member.nodeId() + " did not listen on "
        + member.port() + " within 120 s; see " + member.log());
  }

  private static void stopAll(List<Member> members) {
    // Front to back: the balancer, queries, then metasrvs (they drain their writes), then the
    // metastore.
    for (String role : ROLES_FRONT_TO_BACK) {
      List<ProcessHandle> handles = members.stream().filter(m -> m.role().equals(role))
          .map(m -> ProcessHandle.of(m.pid())).flatMap(Optional::stream).toList();
      terminate(handles);
    }
  }

  static void terminate(List<ProcessHandle> handles) {
    handles.forEach(ProcessHandle::destroy);
    for (ProcessHandle handle : handles) {
      try {
        handle.onExit().get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        handle.destroyForcibly();
      }
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** {@code <data-dir>/cluster.json}: the endpoint and every member process. */
  record ClusterFile(String endpoint, long supervisorPid, List<JsonNode> processes) {

    static void write(Path data, List<Member> members, String endpoint,
        ClusterSecurity security) throws IOException {
      ObjectNode root = JSON.createObjectNode();
      if (endpoint != null) {
        root.put("endpoint", endpoint);
      }
      if (security != null) {
        security.describe(root);
      }
      root.put("pid", ProcessHandle.current().pid());
      ArrayNode processes = root.putArray("processes");
      for (Member member : members) {
        ObjectNode node = processes.addObject();
        node.put("role", member.role());
        if (member.nodeId() != null) {
          node.put("name", member.nodeId());
        }
        node.put("pid", member.pid());
        node.put("port", member.port());
        node.put("log", member.log().toString());
      }
      Path file = data.resolve("cluster.json");
      Path temporary = data.resolve("cluster.json.tmp");
      // With --secure it holds tokens: readable by the owner only.
      ClusterSecurity.writePrivate(temporary, JSON.writerWithDefaultPrettyPrinter()
          .writeValueAsString(root));
      Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    static Optional<ClusterFile> read(Path data) {
      Path file = data.resolve("cluster.json");
      if (!Files.exists(file)) {
        return Optional.empty();
      }
      try {
        JsonNode root = JSON.readTree(file.toFile());
        List<JsonNode> processes = new ArrayList<>();
        root.path("processes").forEach(processes::add);
        return Optional.of(new ClusterFile(root.path("endpoint").asText(null),
            root.path("pid").asLong(-1), processes));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
      }
    }

    boolean anyAlive() {
      return processes.stream().anyMatch(p -> alive(p.path("pid").asLong()));
    }

    static boolean alive(long pid) {
      return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "Prints the cluster's processes, whether each is alive, and the leading metasrv.")
  static final class Status implements Callable<Integer> {

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--data-dir", defaultValue = "${env:LAKE_DATA_DIR:-.lake/cluster}",
        description = "The cluster's data directory (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = "--json", description = "Print cluster.json with \"alive\" and \"leader\".")
    boolean json;

    @Override
    public Integer call() throws IOException {
      Path data = dataDir.toAbsolutePath().normalize();
      Optional<ClusterFile> file = ClusterFile.read(data);
      if (file.isEmpty()) {
        spec.commandLine().getErr().println("lake cluster status: no cluster.json in " + data);
        return 1;
      }
      Optional<String> leader = leaseHolder(file.get());
      ObjectNode root = JSON.createObjectNode();
      if (file.get().endpoint() != null) {
        root.put("endpoint", file.get().endpoint());
      }
      ArrayNode processes = root.putArray("processes");
      for (JsonNode process : file.get().processes()) {
        ObjectNode node = ((ObjectNode) process).deepCopy();
        node.put("alive", ClusterFile.alive(process.path("pid").asLong()));
        if (process.path("role").asText().equals("metasrv")) {
          node.put("leader", leader.isPresent() && leads(leader.get(), process));
        }
        processes.add(node);
      }
      if (json) {
        spec.commandLine().getOut().println(JSON.writerWithDefaultPrettyPrinter()
            .writeValueAsString(root));
      } else {
        spec.commandLine().getOut().println("endpoint " + root.path("endpoint").asText("(starting)"));
        for (JsonNode p : processes) {
          spec.commandLine().getOut().printf("%-9s %-10s pid %-8d port %-6d %s%s%n",
              p.path("role").asText(), p.path("name").asText(""), p.path("pid").asLong(),
              p.path("port").asInt(), p.path("alive").asBoolean() ? "alive" : "dead",
              p.path("leader").asBoolean() ? ", leader" : "");
        }
      }
      spec.commandLine().getOut().flush();
      return 0;
    }

    /** Who holds the metasrv lease, read from the metastore; empty if vacant, expired or unknown. */
    private static Optional<String> leaseHolder(ClusterFile file) {
      Optional<JsonNode> metastore = file.processes().stream()
          .filter(p -> p.path("role").asText().equals("metastore")
              && ClusterFile.alive(p.path("pid").asLong()))
          .findFirst();
      if (metastore.isEmpty()) {
        return Optional.empty();
      }
      DynamoDbSettings settings = DynamoDbSettings.forEndpoint(java.net.URI.create(
              "http://127.0.0.1:" + metastore.get().path("port").asInt()), Dynalite.REGION, TABLE,
          Dynalite.ACCESS_KEY, Dynalite.SECRET_KEY);
      try (DynamoDbMetaStore store = DynamoDbMetaStore.open(settings);
          LeaseElection observer = new LeaseElection(store, LEASE_KEY,
              LeaseElection.newHolderId("status"), LeaseSettings.DEFAULT, Clock.systemUTC())) {
        return observer.observe()
            .filter(lease -> lease.expiresAtMillis() > System.currentTimeMillis())
            .map(LeaseRecord::holder);
      } catch (MetaStoreException e) {
        return Optional.empty();
      }
    }

    /** Whether the lease holder id names this metasrv (by node id or by its port). */
    private static boolean leads(String holder, JsonNode process) {
      String name = process.path("name").asText("");
      return holder.equals(name) || holder.startsWith(name + "@")
          || holder.endsWith(":" + process.path("port").asInt());
    }
  }

  @Command(name = "stop", mixinStandardHelpOptions = true,
      description = "Stops every process of the cluster started from --data-dir.")
  static final class Stop implements Callable<Integer> {

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--data-dir", defaultValue = "${env:LAKE_DATA_DIR:-.lake/cluster}",
        description = "The cluster's data directory (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Override
    public Integer call() {
      Path data = dataDir.toAbsolutePath().normalize();
      Optional<ClusterFile> file = ClusterFile.read(data);
      if (file.isEmpty()) {
        spec.commandLine().getErr().println("lake cluster stop: no cluster.json in " + data);
        return 1;
      }
      for (String role : ROLES_FRONT_TO_BACK) {
        terminate(file.get().processes().stream()
            .filter(p -> p.path("role").asText().equals(role))
            .map(p -> ProcessHandle.of(p.path("pid").asLong())).flatMap(Optional::stream)
            .toList());
      }
      ProcessHandle.of(file.get().supervisorPid()).ifPresent(h -> terminate(List.of(h)));
      spec.commandLine().getOut().println("lake cluster stop: stopped the cluster of " + data);
      return 0;
    }
  }
}
