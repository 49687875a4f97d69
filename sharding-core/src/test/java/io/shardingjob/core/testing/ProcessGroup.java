package io.shardingjob.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The processes one test class starts. {@link #close()} kills every one still alive (and its children); a JVM shutdown
 * hook does the same for processes left behind by a test JVM that is itself being stopped.
 */
public final class ProcessGroup implements AutoCloseable {

    private static final Set<Process> ALL = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ALL.forEach(ProcessGroup::kill), "e2e-process-reaper"));
    }

    private final List<Process> processes = new ArrayList<>();

    /** Starts {@code command} with stdout and stderr appended to {@code output}. */
    public synchronized Process start(List<String> command, Path output) {
        return start(command, Map.of(), output);
    }

    /**
     * Starts {@code command} with {@code environment} added to this JVM's (for example {@code LD_PRELOAD} of
     * libfaketime), stdout and stderr appended to {@code output}.
     */
    public synchronized Process start(List<String> command, Map<String, String> environment, Path output) {
        try {
            Files.createDirectories(output.getParent());
            ProcessBuilder builder = new ProcessBuilder(command);
            builder.environment().putAll(environment);
            Process process = builder.redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
                    .start();
            processes.add(process);
            ALL.add(process);
            return process;
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + command, ex);
        }
    }

    /** {@code kill -9}: SIGKILL on Linux, no shutdown hook runs. */
    public static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        ALL.remove(process);
    }

    @Override
    public synchronized void close() {
        processes.forEach(ProcessGroup::kill);
        processes.clear();
    }

    /** The JVM running this test, for child processes. */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The test's own class path (failsafe's real one, not its manifest-only booter jar). */
    public static String testClassPath() {
        String classPath = System.getProperty("surefire.test.class.path");
        return classPath == null || classPath.isBlank() ? System.getProperty("java.class.path") : classPath;
    }

    public static Path workDirectory(String name) {
        Path root = Path.of(System.getProperty("e2e.workDirectory", "target/e2e"));
        try {
            Path directory = root.resolve(name);
            Files.createDirectories(directory);
            return directory;
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Ports handed out in this JVM: the system may offer a port again once its probe closed. */
    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * A loopback port free now and never handed out before in this JVM: an ensemble's servers take several ports each,
     * and one handed out twice (a server's client port again as its quorum port, seen in CI) keeps it from leading.
     *
     * <p>Taken below the system's ephemeral range, where no outgoing connection's local port lands: a port the
     * system hands out for port 0 is free only until the next connection takes it as its own (a ZooKeeper server of an
     * ensemble cell failed to bind its client port so, seen in CI while the workers and proxies connected around it).
     */
    public static int freePort() {
        int below = EPHEMERAL_FROM;
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = java.util.concurrent.ThreadLocalRandom.current().nextInt(FIXED_FROM, below);
            if (!HANDED_OUT.contains(port) && bindable(port) && HANDED_OUT.add(port)) {
                return port;
            }
        }
        while (true) {
            try (var socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                socket.setReuseAddress(true);
                if (HANDED_OUT.add(socket.getLocalPort())) {
                    return socket.getLocalPort();
                }
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
    }

    /** The lowest port this JVM hands out. */
    private static final int FIXED_FROM = 20_000;

    /** The first port of the system's ephemeral range (Linux's {@code ip_local_port_range}; 32768 when unknown). */
    private static final int EPHEMERAL_FROM = ephemeralFrom();

    private static int ephemeralFrom() {
        try {
            String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .trim();
            int low = Integer.parseInt(range.split("\\s+")[0]);
            return low > FIXED_FROM + 1_000 ? low : 32_768;
        } catch (IOException | RuntimeException unknown) {
            return 32_768;
        }
    }

    private static boolean bindable(int port) {
        try (var socket = new java.net.ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
