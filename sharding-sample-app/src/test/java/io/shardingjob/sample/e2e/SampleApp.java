package io.shardingjob.sample.e2e;

import static org.awaitility.Awaitility.await;

import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.sample.e2e.ShardingJson.Job;
import io.shardingjob.sample.e2e.ShardingJson.Summary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** A copy of the packaged sample application in its own JVM, read through {@code /actuator/sharding} and its output. */
final class SampleApp {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static final JsonMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private final String instanceId;

    private final int port;

    private final Process process;

    private final Path output;

    private SampleApp(String instanceId, int port, Process process, Path output) {
        this.instanceId = instanceId;
        this.port = port;
        this.process = process;
        this.output = output;
    }

    /**
     * Starts {@code java -jar sharding-sample-app.jar} against {@code connectString}, without the embedded server, on a
     * free HTTP port; {@code properties} are further {@code --key=value} arguments. Does not wait for it.
     */
    static SampleApp start(
            ProcessGroup processes, String suite, String instanceId, String connectString, List<String> properties) {
        return start(processes, suite, instanceId, connectString, properties, true);
    }

    /** As {@link #start(ProcessGroup, String, String, String, List)}, read-only unless {@code writes} are allowed. */
    static SampleApp start(
            ProcessGroup processes,
            String suite,
            String instanceId,
            String connectString,
            List<String> properties,
            boolean writes) {
        return start(processes, suite, instanceId, connectString, properties, writes, Map.of());
    }

    /**
     * As {@link #start(ProcessGroup, String, String, String, List, boolean)}, the process started with {@code
     * environment} added (libfaketime's, to start it at another time).
     */
    static SampleApp start(
            ProcessGroup processes,
            String suite,
            String instanceId,
            String connectString,
            List<String> properties,
            boolean writes,
            Map<String, String> environment) {
        int port = ProcessGroup.freePort();
        Path output = ProcessGroup.workDirectory(suite).resolve(instanceId + ".log");
        List<String> command = new ArrayList<>(List.of(
                ProcessGroup.java(),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-jar",
                System.getProperty("sample.jar", "target/sharding-sample-app-0.1.0-SNAPSHOT.jar"),
                "--server.port=" + port,
                "--server.address=127.0.0.1",
                "--sharding.zookeeper.embedded.enabled=false",
                "--sharding.zookeeper.connect-string=" + connectString,
                "--sharding.instance-id=" + instanceId,
                "--management.endpoint.sharding.access=" + (writes ? "unrestricted" : "read-only")));
        properties.forEach(property -> command.add("--" + property));
        return new SampleApp(instanceId, port, processes.start(command, environment, output), output);
    }

    /** Waits until the endpoint answers, connected, with every job: the sample's two. */
    SampleApp awaitReady(Duration timeout) {
        return awaitReady(timeout, 2);
    }

    /** Waits until the endpoint answers, connected, with {@code jobs} jobs (more with jobs defined at run time). */
    SampleApp awaitReady(Duration timeout, int jobs) {
        await(instanceId + " ready")
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .failFast(instanceId + " exited, see " + output, () -> !process.isAlive())
                .until(() -> {
                    Summary summary = summary();
                    return summary.connected() && summary.jobs().size() == jobs;
                });
        return this;
    }

    String instanceId() {
        return instanceId;
    }

    Process process() {
        return process;
    }

    Path output() {
        return output;
    }

    /** The address of {@code path} on this copy. */
    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    Summary summary() {
        return get("/actuator/sharding", Summary.class);
    }

    Job job(String name) {
        return get("/actuator/sharding/" + name, Job.class);
    }

    /** The application's output so far. */
    String log() {
        try {
            return Files.readString(output);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** {@code kill -9}. */
    void kill() {
        ProcessGroup.kill(process);
    }

    /** SIGSTOP: every thread of the copy stops where it is, as in a long GC pause or a frozen VM, until {@link #thaw}. */
    void freeze() {
        signal("STOP");
    }

    /** SIGCONT: the frozen copy goes on from where it stopped, as if no time had passed for it. */
    void thaw() {
        signal("CONT");
    }

    /** Sends {@code SIG<name>} through {@code kill(1)}: Java sends only TERM and KILL. */
    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
                    .inheritIO()
                    .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " (" + instanceId + ") failed");
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** SIGTERM: Spring's graceful shutdown; waits for the process to end. */
    void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new AssertionError(instanceId + " did not stop within 60 s after SIGTERM, see " + output);
        }
    }

    /**
     * {@code POST /actuator/sharding/{job}} with {@code json}, an operation such as {@code {"action":"rerun",...}}.
     *
     * @return the answer's body
     * @throws IllegalStateException when the answer is not 200, saying what it was
     */
    String operate(String job, String json) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url("/actuator/sharding/" + job)))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
        try {
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("POST " + json + " to " + job + " on " + instanceId + " answered "
                        + response.statusCode() + ": " + response.body());
            }
            return response.body();
        } catch (IOException ex) {
            throw new UncheckedIOException("POST to " + job + " on " + instanceId, ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private <T> T get(String path, Class<T> type) {
        // Long: a copy under faketime writes a job's recent runs slowly, and a client that gave up while it wrote
        // would never read them; callers poll with deadlines of their own.
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build();
        try {
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("GET " + path + " on " + instanceId + " answered "
                        + response.statusCode() + ": " + response.body());
            }
            return JSON.readValue(response.body(), type);
        } catch (IOException ex) {
            throw new UncheckedIOException("GET " + path + " on " + instanceId, ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    @Override
    public String toString() {
        return instanceId + " (http " + port + ")";
    }
}
