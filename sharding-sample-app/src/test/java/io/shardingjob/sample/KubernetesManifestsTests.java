package io.shardingjob.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.autoconfigure.ShardingProperties;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ClassPathResource;
import org.yaml.snakeyaml.Yaml;

/**
 * The manifests of docs/kubernetes.md ({@code deploy/kubernetes}) parse, and the values that must agree with the
 * starter's properties do: the sample app is read as the Deployment configures it (its environment over its
 * application.yml, bound as Spring Boot binds them), and the probes are asked of the sample app started so.
 */
class KubernetesManifestsTests {

    private static final Path MANIFESTS = Path.of("..", "deploy", "kubernetes");

    /** Named so that Boot reads it as it reads the process's environment (SHARDING_SHUTDOWN_GRACEPERIOD and so on). */
    private static final String DEPLOYMENT =
            "deployment-" + StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME;

    /** What a pod may still need, after the grace period and the web server's drain, for its items to return. */
    private static final Duration MARGIN = Duration.ofSeconds(10);

    private final List<Map<String, Object>> documents = load();

    private final Map<String, Object> deployment = one("Deployment", "sharding-sample");

    private final Map<String, Object> container = first(list(deployment, "spec", "template", "spec", "containers"));

    private final Map<String, String> environment = environment(container);

    private final Binder sample = sampleAsDeployed(environment);

    private final ShardingProperties sharding = sample.bindOrCreate("sharding", ShardingProperties.class);

    private final Map<String, Object> zookeeper = one("StatefulSet", "zookeeper");

    @Test
    void everyManifestParsesAndNamesItsApiKindAndName() {
        assertThat(documents).hasSizeGreaterThanOrEqualTo(7);
        assertThat(documents).allSatisfy(document -> {
            assertThat(document).containsKeys("apiVersion", "kind", "metadata");
            assertThat(string(document, "metadata", "name")).isNotBlank();
        });
        assertThat(documents.stream().map(document -> document.get("kind")))
                .contains("Deployment", "StatefulSet", "Service", "PodDisruptionBudget");
    }

    @Test
    void thePodIsGivenLongerToStopThanItsPauseTheJobsGracePeriodAndTheWebServersDrain() {
        Duration pause = Duration.ofSeconds(integerOr(0, container, "lifecycle", "preStop", "sleep", "seconds"));
        Duration drain = sample.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .orElse(Duration.ofSeconds(30));
        Duration needed =
                pause.plus(sharding.getShutdown().getGracePeriod()).plus(drain).plus(MARGIN);

        assertThat(Duration.ofSeconds(
                        integerOr(30, deployment, "spec", "template", "spec", "terminationGracePeriodSeconds")))
                .as("terminationGracePeriodSeconds against the pause, the grace period, the drain and a margin")
                .isGreaterThanOrEqualTo(needed);
    }

    @Test
    void theConnectStringNamesEveryServerOfTheEnsembleThroughItsHeadlessService() {
        String headless = string(zookeeper, "spec", "serviceName");
        Map<String, Object> service = one("Service", headless);
        assertThat(string(service, "spec", "clusterIP")).isEqualTo("None");
        int clientPort = port(service, "client");
        Set<String> servers = IntStream.range(0, integerOr(1, zookeeper, "spec", "replicas"))
                .mapToObj(ordinal -> string(zookeeper, "metadata", "name") + "-" + ordinal + "." + headless)
                .collect(Collectors.toSet());

        assertThat(sharding.getZookeeper().getEmbedded().isEnabled()).isFalse();
        String connectString = sharding.getZookeeper().getConnectString();
        assertThat(connectString).isNotNull();
        assertThat(Arrays.asList(connectString.split(",")))
                .containsExactlyInAnyOrderElementsOf(servers.stream()
                        .map(server -> server + ":" + clientPort)
                        .toList());
        // Each server knows the same ensemble, on the ports the headless Service names.
        String ensemble = environment(first(list(zookeeper, "spec", "template", "spec", "containers")))
                .get("ZOO_SERVERS");
        List<String> entries = Arrays.asList(ensemble.trim().split("\\s+"));
        assertThat(entries)
                .containsExactlyInAnyOrderElementsOf(IntStream.range(0, servers.size())
                        .mapToObj(ordinal -> "server." + (ordinal + 1) + "=" + string(zookeeper, "metadata", "name")
                                + "-" + ordinal + "." + headless + ":" + port(service, "follower") + ":"
                                + port(service, "election") + ";" + clientPort)
                        .toList());
    }

    @Test
    void theSessionTimeoutLiesWithinWhatTheEnsembleAllows() {
        Map<String, String> server = environment(first(list(zookeeper, "spec", "template", "spec", "containers")));
        long tick = Long.parseLong(server.getOrDefault("ZOO_TICK_TIME", "2000"));
        Map<String, String> extra = Stream.of(
                        server.getOrDefault("ZOO_CFG_EXTRA", "").split("\\s+"))
                .filter(setting -> setting.contains("="))
                .collect(Collectors.toMap(
                        setting -> setting.substring(0, setting.indexOf('=')),
                        setting -> setting.substring(setting.indexOf('=') + 1)));
        long min = Long.parseLong(extra.getOrDefault("minSessionTimeout", String.valueOf(2 * tick)));
        long max = Long.parseLong(extra.getOrDefault("maxSessionTimeout", String.valueOf(20 * tick)));

        assertThat(sharding.getZookeeper().getSessionTimeout().toMillis())
                .as("sharding.zookeeper.session-timeout within the servers' %d..%d ms", min, max)
                .isBetween(min, max);
    }

    @Test
    void aRollingUpdateOrADrainTakesOneCopyAtATimeAndNeverTheQuorum() {
        assertThat(integerOr(-1, deployment, "spec", "strategy", "rollingUpdate", "maxUnavailable"))
                .isZero();
        assertThat(integerOr(-1, deployment, "spec", "strategy", "rollingUpdate", "maxSurge"))
                .isEqualTo(1);
        assertThat(integerOr(-1, budgetOf(deployment), "spec", "maxUnavailable"))
                .isEqualTo(1);
        int servers = integerOr(1, zookeeper, "spec", "replicas");
        assertThat(servers - integerOr(servers, budgetOf(zookeeper), "spec", "maxUnavailable"))
                .as("servers left during a drain")
                .isGreaterThanOrEqualTo(servers / 2 + 1);
    }

    @Test
    void everyServiceAndBudgetSelectsThePodsOfAWorkload() {
        List<Map<String, String>> podLabels = Stream.of("Deployment", "StatefulSet")
                .flatMap(kind -> documents.stream().filter(document -> kind.equals(document.get("kind"))))
                .map(workload -> {
                    Map<String, String> labels = strings(map(workload, "spec", "template", "metadata", "labels"));
                    assertThat(labels).containsAllEntriesOf(strings(map(workload, "spec", "selector", "matchLabels")));
                    return labels;
                })
                .toList();
        documents.stream()
                .filter(document -> document.get("kind").equals("Service"))
                .forEach(service -> assertThat(podLabels)
                        .anySatisfy(labels ->
                                assertThat(labels).containsAllEntriesOf(strings(map(service, "spec", "selector")))));
        documents.stream()
                .filter(document -> document.get("kind").equals("PodDisruptionBudget"))
                .forEach(budget -> assertThat(podLabels)
                        .anySatisfy(labels -> assertThat(labels)
                                .containsAllEntriesOf(strings(map(budget, "spec", "selector", "matchLabels")))));
    }

    @Test
    void theInstanceIdIsLeftToThePodsName() {
        assertThat(sharding.getInstanceId()).isNull();
    }

    @Test
    void theProbesAnswerOnTheSampleAppStartedWithTheDeploymentsEnvironment() throws Exception {
        List<Map<String, Object>> probes = Stream.of("startupProbe", "readinessProbe", "livenessProbe")
                .map(probe -> map(container, probe, "httpGet"))
                .toList();
        int containerPort = port(container, "http", "containerPort");
        assertThat(probes).allSatisfy(probe -> assertThat(probe.get("port")).isEqualTo("http"));
        assertThat(sample.bind("server.port", Integer.class).orElse(8080)).isEqualTo(containerPort);
        assertThat(probes.stream().map(probe -> (String) probe.get("path")))
                .contains("/actuator/health/readiness", "/actuator/health/liveness");

        Map<String, Object> deployed = new LinkedHashMap<>(environment);
        // The test's own ZooKeeper, inside the app, in place of the ensemble.
        deployed.keySet().removeIf(name -> name.startsWith("SHARDING_ZOOKEEPER_"));
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(SampleApplication.class)
                .web(WebApplicationType.SERVLET)
                .initializers(context -> context.getEnvironment()
                        .getPropertySources()
                        .addFirst(new SystemEnvironmentPropertySource(DEPLOYMENT, deployed)))
                .properties("server.port=0", "sharding.zookeeper.embedded.port=0")
                .run()) {
            int port = app.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            HttpClient http = HttpClient.newHttpClient();
            for (Map<String, Object> probe : probes) {
                HttpResponse<String> answer = http.send(
                        HttpRequest.newBuilder(URI.create("http://localhost:" + port + probe.get("path")))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(answer.statusCode()).as("%s", probe.get("path")).isEqualTo(200);
                assertThat(answer.body()).contains("\"status\":\"UP\"");
            }
        }
    }

    private Map<String, Object> budgetOf(Map<String, Object> workload) {
        Map<String, String> labels = strings(map(workload, "spec", "template", "metadata", "labels"));
        return documents.stream()
                .filter(document -> document.get("kind").equals("PodDisruptionBudget"))
                .filter(budget -> labels.entrySet()
                        .containsAll(strings(map(budget, "spec", "selector", "matchLabels"))
                                .entrySet()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no PodDisruptionBudget for " + workload.get("metadata")));
    }

    private Map<String, Object> one(String kind, String name) {
        return documents.stream()
                .filter(document -> kind.equals(document.get("kind")))
                .filter(document -> name.equals(string(document, "metadata", "name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " named " + name + " in " + MANIFESTS));
    }

    /** The sample app's settings as the Deployment sets them: its environment over its own application.yml. */
    private static Binder sampleAsDeployed(Map<String, String> environment) {
        MutablePropertySources sources = new MutablePropertySources();
        sources.addFirst(new SystemEnvironmentPropertySource(DEPLOYMENT, new LinkedHashMap<>(environment)));
        try {
            new YamlPropertySourceLoader()
                    .load("application.yml", new ClassPathResource("application.yml"))
                    .forEach(sources::addLast);
        } catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
        return new Binder(ConfigurationPropertySources.from(sources));
    }

    private static List<Map<String, Object>> load() {
        List<Map<String, Object>> documents = new ArrayList<>();
        try (Stream<Path> files = Files.list(MANIFESTS)) {
            for (Path file : files.filter(path -> path.toString().endsWith(".yaml"))
                    .sorted()
                    .toList()) {
                try (Reader reader = Files.newBufferedReader(file)) {
                    for (Object document : new Yaml().loadAll(reader)) {
                        documents.add(asMap(document));
                    }
                }
            }
        } catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
        return documents;
    }

    private static Map<String, String> environment(Map<String, Object> container) {
        Map<String, String> environment = new LinkedHashMap<>();
        for (Object variable : (List<?>) container.getOrDefault("env", List.of())) {
            Map<String, Object> entry = asMap(variable);
            environment.put((String) entry.get("name"), String.valueOf(entry.get("value")));
        }
        return environment;
    }

    /** The number of the named port of a Service ({@code port}) or a container ({@code containerPort}). */
    private static int port(Map<String, Object> owner, String name) {
        return port(map(owner, "spec"), name, "port");
    }

    private static int port(Map<String, Object> owner, String name, String field) {
        return ((List<?>) owner.get("ports"))
                .stream()
                        .map(KubernetesManifestsTests::asMap)
                        .filter(port -> name.equals(port.get("name")))
                        .map(port -> (Integer) port.get(field))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no port named " + name));
    }

    private static Object at(Map<String, Object> node, String... path) {
        Object current = node;
        for (String key : path) {
            if (!(current instanceof Map<?, ?> map) || !map.containsKey(key)) {
                return null;
            }
            current = map.get(key);
        }
        return current;
    }

    private static Map<String, Object> map(Map<String, Object> node, String... path) {
        Object found = at(node, path);
        assertThat(found).as("%s", String.join(".", path)).isInstanceOf(Map.class);
        return asMap(found);
    }

    private static List<?> list(Map<String, Object> node, String... path) {
        Object found = at(node, path);
        assertThat(found).as("%s", String.join(".", path)).isInstanceOf(List.class);
        return (List<?>) found;
    }

    private static String string(Map<String, Object> node, String... path) {
        return String.valueOf(at(node, path));
    }

    private static int integerOr(int otherwise, Map<String, Object> node, String... path) {
        Object found = at(node, path);
        return found == null ? otherwise : (Integer) found;
    }

    private static Map<String, Object> first(List<?> list) {
        return asMap(list.get(0));
    }

    private static Map<String, String> strings(Map<String, Object> map) {
        Map<String, String> strings = new LinkedHashMap<>();
        map.forEach((key, value) -> strings.put(key, String.valueOf(value)));
        return strings;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object node) {
        return (Map<String, Object>) node;
    }
}
