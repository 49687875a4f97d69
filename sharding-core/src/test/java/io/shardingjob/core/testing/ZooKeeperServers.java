package io.shardingjob.core.testing;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * ZooKeeper servers in their own JVMs, started from the ZooKeeper jar on this test's class path: a standalone
 * {@code ZooKeeperServerMain} or an ensemble of {@code QuorumPeerMain}s, on loopback ports, with a 500 ms tick so that
 * sessions of a few seconds are allowed, the four-letter words on and the admin server off.
 */
public final class ZooKeeperServers {

    /** One server: its id (0 when standalone), client port and process. */
    public record Server(int id, int clientPort, Process process, Path output) {

        public String address() {
            return "127.0.0.1:" + clientPort;
        }

        /** {@code standalone}, {@code leader}, {@code follower}, or empty while it does not serve. */
        public Optional<String> mode() {
            return fourLetterWord(clientPort, "srvr")
                    .lines()
                    .filter(line -> line.startsWith("Mode: "))
                    .map(line -> line.substring("Mode: ".length()).trim())
                    .findFirst();
        }
    }

    /**
     * A small JVM that starts fast: tests need a server, not its throughput. Its heap is a quarter of the default
     * ZooKeeper starts with (1,000 MB): at 128 MB a CI run's server died of OutOfMemoryError 9 s after a 20 s freeze,
     * answering the backlog of four workers with a ledger of 2,000 item-fires.
     */
    private static final List<String> TEST_JVM = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private static final List<String> BENCHMARK_JVM = List.of("-Xmx1g", "-XX:+UseParallelGC");

    private ZooKeeperServers() {}

    /**
     * A standalone server on a fresh data directory: a test must not see what an earlier build left, such as a ledger
     * whose fires the misfire policy would make up.
     */
    public static Server standalone(ProcessGroup processes, String name) {
        return standalone(processes, name, TEST_JVM);
    }

    /**
     * As {@link #standalone(ProcessGroup, String)}, the process started with {@code environment} added (libfaketime's,
     * so that the server tells the same time as the clients it serves).
     */
    public static Server standalone(ProcessGroup processes, String name, Map<String, String> environment) {
        return standalone(processes, name, TEST_JVM, List.of(), true, environment);
    }

    /**
     * A standalone server for a benchmark: on a fresh data directory too, and in a fully compiling JVM with room for
     * thousands of jobs, since the server's speed is part of what is measured.
     */
    public static Server forBenchmark(ProcessGroup processes, String name) {
        return standalone(processes, name, BENCHMARK_JVM);
    }

    /**
     * A standalone server that authenticates its clients with SASL DIGEST-MD5, knowing {@code users} (name to password)
     * from the {@code Server} section of a JAAS file of its own, and serves only authenticated sessions ({@code
     * enforce.auth.schemes=sasl}).
     */
    public static Server sasl(ProcessGroup processes, String name, Map<String, String> users) {
        deleteRecursively(ProcessGroup.workDirectory(name));
        Path jaas = ProcessGroup.workDirectory(name).resolve("jaas.conf");
        write(
                jaas,
                "Server {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n"
                        + users.entrySet().stream()
                                .map(user -> "  user_" + user.getKey() + "=\"" + user.getValue() + "\"")
                                .collect(Collectors.joining("\n"))
                        + ";\n};\n");
        List<String> jvmOptions = new ArrayList<>(TEST_JVM);
        jvmOptions.add("-Djava.security.auth.login.config=" + jaas.toAbsolutePath());
        // DIGEST-MD5 is not FIPS-approved: ZooKeeper 3.9 refuses it unless FIPS mode is off.
        jvmOptions.add("-Dzookeeper.fips-mode=false");
        return standalone(
                processes,
                name,
                jvmOptions,
                List.of(
                        "authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
                        "enforce.auth.enabled=true",
                        "enforce.auth.schemes=sasl"),
                false);
    }

    private static Server standalone(ProcessGroup processes, String name, List<String> jvmOptions) {
        return standalone(processes, name, jvmOptions, List.of(), true);
    }

    private static Server standalone(
            ProcessGroup processes, String name, List<String> jvmOptions, List<String> extraConfig, boolean fresh) {
        return standalone(processes, name, jvmOptions, extraConfig, fresh, Map.of());
    }

    private static Server standalone(
            ProcessGroup processes,
            String name,
            List<String> jvmOptions,
            List<String> extraConfig,
            boolean fresh,
            Map<String, String> environment) {
        if (fresh) {
            deleteRecursively(ProcessGroup.workDirectory(name));
        }
        Path directory = ProcessGroup.workDirectory(name);
        int clientPort = ProcessGroup.freePort();
        Path config = writeConfig(directory, clientPort, extraConfig);
        Server server = new Server(
                0,
                clientPort,
                processes.start(
                        command("org.apache.zookeeper.server.ZooKeeperServerMain", directory, config, jvmOptions),
                        environment,
                        output(directory)),
                output(directory));
        awaitServing(server);
        return server;
    }

    /**
     * A standalone server that serves TLS only: a {@code secureClientPort} on Netty and no plaintext port, with the
     * server's key and trust stores of {@code certificates}; it asks every client for a certificate it trusts ({@code
     * ssl.clientAuth=need}). Its {@link Server#clientPort()} is the secure port; the four-letter words are not served.
     */
    public static Server secure(ProcessGroup processes, String name, TestCertificates certificates) {
        deleteRecursively(ProcessGroup.workDirectory(name));
        Path directory = ProcessGroup.workDirectory(name);
        int securePort = ProcessGroup.freePort();
        Path config = directory.resolve("zoo.cfg");
        write(
                config,
                String.join(
                                "\n",
                                List.of(
                                        "tickTime=500",
                                        "dataDir=" + directory.resolve("data").toAbsolutePath(),
                                        "secureClientPort=" + securePort,
                                        "secureClientPortAddress=127.0.0.1",
                                        "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
                                        "ssl.keyStore.location="
                                                + certificates.keys("server").toAbsolutePath(),
                                        "ssl.keyStore.password=" + TestCertificates.PASSWORD,
                                        "ssl.trustStore.location="
                                                + certificates.trust("server").toAbsolutePath(),
                                        "ssl.trustStore.password=" + TestCertificates.PASSWORD,
                                        "ssl.clientAuth=need",
                                        "admin.enableServer=false"))
                        + "\n");
        Server server = new Server(
                0,
                securePort,
                processes.start(
                        command("org.apache.zookeeper.server.ZooKeeperServerMain", directory, config, TEST_JVM),
                        output(directory)),
                output(directory));
        await("secure ZooKeeper server on port " + securePort + " listening")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .failFast(
                        "ZooKeeper process exited, see " + server.output(),
                        () -> !server.process().isAlive())
                .until(() -> accepts(securePort));
        return server;
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }

    /** Three or more servers on fresh data directories. */
    public static List<Server> ensemble(ProcessGroup processes, String name, int size) {
        return ensemble(processes, name, size, TEST_JVM);
    }

    /**
     * Three or more servers for a benchmark, each in a fully compiling JVM as {@link #forBenchmark} gives a standalone
     * one, with a third of its heap: they share the machine with one another and with the clients.
     */
    public static List<Server> ensembleForBenchmark(ProcessGroup processes, String name, int size) {
        return ensemble(processes, name, size, List.of("-Xmx384m", "-XX:+UseParallelGC"));
    }

    private static List<Server> ensemble(ProcessGroup processes, String name, int size, List<String> jvmOptions) {
        deleteRecursively(ProcessGroup.workDirectory(name));
        List<String> peers = new ArrayList<>();
        int[] clientPorts = new int[size + 1];
        for (int id = 1; id <= size; id++) {
            clientPorts[id] = ProcessGroup.freePort();
            peers.add("server." + id + "=127.0.0.1:" + ProcessGroup.freePort() + ":" + ProcessGroup.freePort());
        }
        List<Server> servers = new ArrayList<>();
        for (int id = 1; id <= size; id++) {
            Path directory = ProcessGroup.workDirectory(name + "/zk" + id);
            write(directory.resolve("data/myid"), Integer.toString(id));
            Path config = writeConfig(directory, clientPorts[id], peers);
            servers.add(new Server(
                    id,
                    clientPorts[id],
                    processes.start(
                            command("org.apache.zookeeper.server.quorum.QuorumPeerMain", directory, config, jvmOptions),
                            output(directory)),
                    output(directory)));
        }
        servers.forEach(ZooKeeperServers::awaitServing);
        return servers;
    }

    /**
     * An ensemble whose servers reach one another only through proxies in the test process, one per server, peer and
     * port (quorum and election), so that one server can be cut off from the others while its clients still reach it.
     *
     * @param links the proxies of each server's links, to and from its peers, by server id
     */
    public record ProxiedEnsemble(List<Server> servers, Map<Integer, List<TcpProxy>> links) {

        /** Holds every byte between the server and its peers, keeping the connections open, as a partition does. */
        public void cutOff(int id) {
            links.get(id).forEach(TcpProxy::freeze);
        }

        public void reconnect(int id) {
            links.get(id).forEach(TcpProxy::thaw);
        }
    }

    /**
     * Three or more servers whose quorum and election links go through proxies; {@code syncLimit} ticks of 500 ms are
     * how long a follower serves its clients on after it last heard from its leader.
     */
    public static ProxiedEnsemble proxiedEnsemble(ProcessGroup processes, String name, int size, int syncLimit) {
        deleteRecursively(ProcessGroup.workDirectory(name));
        int[] clientPorts = new int[size + 1];
        int[] quorumPorts = new int[size + 1];
        int[] electionPorts = new int[size + 1];
        for (int id = 1; id <= size; id++) {
            clientPorts[id] = ProcessGroup.freePort();
            quorumPorts[id] = ProcessGroup.freePort();
            electionPorts[id] = ProcessGroup.freePort();
        }
        Map<Integer, List<TcpProxy>> links = new HashMap<>();
        List<Server> servers = new ArrayList<>();
        try {
            for (int id = 1; id <= size; id++) {
                List<String> peers = new ArrayList<>();
                for (int peer = 1; peer <= size; peer++) {
                    if (peer == id) {
                        // Its own line: the ports it listens on.
                        peers.add("server." + id + "=127.0.0.1:" + quorumPorts[id] + ":" + electionPorts[id]);
                        continue;
                    }
                    TcpProxy quorum = TcpProxy.ofBytes(quorumPorts[peer]);
                    TcpProxy election = TcpProxy.ofBytes(electionPorts[peer]);
                    for (int end : new int[] {id, peer}) {
                        links.computeIfAbsent(end, any -> new ArrayList<>()).addAll(List.of(quorum, election));
                    }
                    peers.add("server." + peer + "=127.0.0.1:" + quorum.port() + ":" + election.port());
                }
                Path directory = ProcessGroup.workDirectory(name + "/zk" + id);
                write(directory.resolve("data/myid"), Integer.toString(id));
                Path config = writeConfig(directory, clientPorts[id], peers, syncLimit);
                servers.add(new Server(
                        id,
                        clientPorts[id],
                        processes.start(
                                command(
                                        "org.apache.zookeeper.server.quorum.QuorumPeerMain",
                                        directory,
                                        config,
                                        TEST_JVM),
                                output(directory)),
                        output(directory)));
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        servers.forEach(ZooKeeperServers::awaitServing);
        return new ProxiedEnsemble(List.copyOf(servers), Map.copyOf(links));
    }

    /**
     * Kills the server ({@code kill -9}) and starts it again on its data directory, configuration and ports: a crash and
     * restart that keeps the sessions its snapshot and log hold. Returns the new server once it serves.
     */
    public static Server killAndRestart(ProcessGroup processes, Server server) {
        ProcessGroup.kill(server.process());
        Path directory = server.output().getParent();
        String mainClass = server.id() == 0
                ? "org.apache.zookeeper.server.ZooKeeperServerMain"
                : "org.apache.zookeeper.server.quorum.QuorumPeerMain";
        Server again = new Server(
                server.id(),
                server.clientPort(),
                processes.start(command(mainClass, directory, directory.resolve("zoo.cfg"), TEST_JVM), server.output()),
                server.output());
        awaitServing(again);
        return again;
    }

    public static String connectString(List<Server> servers) {
        return servers.stream().map(Server::address).collect(Collectors.joining(","));
    }

    public static String fourLetterWord(int port, String word) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(3000);
            OutputStream out = socket.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException ex) {
            return "";
        }
    }

    /**
     * The server's {@code mntr} four-letter word as numbers by key ({@code zk_packets_received}, on the leader
     * {@code zk_proposal_count}, ...); the keys whose value is not a number are left out, empty when it does not answer.
     */
    public static Map<String, Long> monitor(int port) {
        Map<String, Long> values = new HashMap<>();
        for (String line : fourLetterWord(port, "mntr").lines().toList()) {
            String[] keyAndValue = line.split("\t", 2);
            if (keyAndValue.length == 2) {
                try {
                    values.put(keyAndValue[0].trim(), Long.parseLong(keyAndValue[1].trim()));
                } catch (NumberFormatException notACount) {
                    // A version string, a server state, or a fraction: not a counter.
                }
            }
        }
        return values;
    }

    private static void awaitServing(Server server) {
        // Generous: three fully compiling server JVMs starting at once on a loaded two-core machine took 40 s.
        await("ZooKeeper server " + server.id() + " on port " + server.clientPort() + " serving")
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200))
                .failFast(
                        "ZooKeeper process exited, see " + server.output(),
                        () -> !server.process().isAlive())
                .until(() -> server.mode().isPresent());
    }

    private static List<String> command(String mainClass, Path directory, Path config, List<String> jvmOptions) {
        List<String> command = new ArrayList<>();
        command.add(ProcessGroup.java());
        command.addAll(jvmOptions);
        command.addAll(List.of(
                "-Dlogback.configurationFile=" + writeLogback(directory),
                "-cp",
                ProcessGroup.testClassPath(),
                mainClass,
                config.toString()));
        return command;
    }

    private static Path writeConfig(Path directory, int clientPort, List<String> peers) {
        return writeConfig(directory, clientPort, peers, 10);
    }

    private static Path writeConfig(Path directory, int clientPort, List<String> peers, int syncLimit) {
        List<String> lines = new ArrayList<>(List.of(
                "tickTime=500",
                "initLimit=20",
                "syncLimit=" + syncLimit,
                "dataDir=" + directory.resolve("data").toAbsolutePath(),
                "clientPort=" + clientPort,
                "clientPortAddress=127.0.0.1",
                "maxClientCnxns=0",
                "admin.enableServer=false",
                "4lw.commands.whitelist=*",
                "quorumListenOnAllIPs=false"));
        lines.addAll(peers);
        Path config = directory.resolve("zoo.cfg");
        write(config, String.join("\n", lines) + "\n");
        return config;
    }

    private static Path writeLogback(Path directory) {
        Path file = directory.resolve("logback.xml");
        write(file, """
                <configuration>
                  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
                    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
                  </appender>
                  <root level="INFO"><appender-ref ref="OUT"/></root>
                </configuration>
                """);
        return file;
    }

    private static Path output(Path directory) {
        return directory.resolve("zookeeper.log");
    }

    private static void deleteRecursively(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static void write(Path file, String content) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, content);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
