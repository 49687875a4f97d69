package io.shardingjob.boot.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import com.jayway.jsonpath.PathNotFoundException;
import io.micrometer.core.instrument.MeterRegistry;
import io.shardingjob.boot.RecordingJob;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.ShardedJobRegistry;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.execution.LedgerFire;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The endpoint over real HTTP, as an operator's curl would use it. */
@SpringBootTest(
        classes = ShardingEndpointHttpTests.Service.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=sharding,health",
            "management.endpoint.sharding.access=unrestricted",
            "management.endpoint.health.show-components=always"
        })
class ShardingEndpointHttpTests {

    private static final String INSTANCE = "http-test";

    private static final Duration PATIENCE = Duration.ofSeconds(15);

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    private int port;

    @Autowired
    private MeterRegistry meters;

    @Autowired
    private ShardedJobRegistry registry;

    @Autowired
    private ShardingOperations operations;

    @DynamicPropertySource
    static void zooKeeper(DynamicPropertyRegistry registry) {
        TestZooKeeper.register(registry, INSTANCE);
    }

    @Test
    void describesThisInstanceAndItsJobs() {
        eventually().untilAsserted(() -> {
            DocumentContext summary = get("/actuator/sharding", 200);
            assertThat(summary.read("$.instanceId", String.class)).isEqualTo(INSTANCE);
            assertThat(summary.read("$.connected", Boolean.class)).isTrue();
            assertThat(summary.read("$.jobs[*].name", List.class)).containsExactly("orderSync", "manualReport");
            assertThat(summary.read("$.jobs[0].cron", String.class)).isEqualTo("* * * * * *");
            assertThat(summary.read("$.jobs[0].shardingTotalCount", Integer.class))
                    .isEqualTo(4);
            assertThat(summary.read("$.jobs[0].leader", String.class)).isEqualTo(INSTANCE);
            assertThat(summary.read("$.jobs[0].epoch", Long.class)).isPositive();
            assertThat(summary.read("$.jobs[0].reshardPending", Boolean.class)).isFalse();
            assertThat(summary.read("$.jobs[0].localItems", List.class)).containsExactly(0, 1, 2, 3);
            assertThat(summary.read("$.jobs[0].after", List.class)).isEmpty();
            assertThat(summary.read("$.jobs[0].on", String.class)).isEqualTo("success");
            assertThat(summary.read("$.jobs[0].itemWise", Boolean.class)).isFalse();
            assertThat(summary.read("$.jobs[0].followers", List.class)).isEmpty();
            // ZooKeeper runs on this machine's clock: no skew beyond the measuring round trip.
            long uncertainty = summary.read("$.clockSkew.uncertaintyMillis", Long.class);
            assertThat(Math.abs(summary.read("$.clockSkew.skewMillis", Long.class)))
                    .isLessThanOrEqualTo(uncertainty + 1);
            assertThat(summary.read("$.clockSkew.maxClockSkewMillis", Long.class))
                    .isEqualTo(5_000L);
            assertThat(summary.read("$.clockSkew.exceeded", Boolean.class)).isFalse();
            assertThat(Instant.parse(summary.read("$.clockSkew.measuredAt", String.class)))
                    .isBefore(Instant.now().plusSeconds(1));
        });
    }

    @Test
    void describesOneJobWithItsInstancesItemsAndRecentExecutions() {
        eventually().untilAsserted(() -> {
            DocumentContext job = get("/actuator/sharding/orderSync", 200);
            assertThat(job.read("$.name", String.class)).isEqualTo("orderSync");
            assertThat(job.read("$.leader", String.class)).isEqualTo(INSTANCE);
            assertThat(job.read("$.epoch", Long.class)).isPositive();
            assertThat(job.read("$.shardingTotalCount", Integer.class)).isEqualTo(4);
            assertThat(job.read("$.reshardPending", Boolean.class)).isFalse();
            assertThat(job.read("$.failover", Boolean.class)).isTrue();
            assertThat(job.read("$.after", List.class)).isEmpty();
            assertThat(job.read("$.on", String.class)).isEqualTo("success");
            assertThat(job.read("$.itemWise", Boolean.class)).isFalse();
            assertThat(job.read("$.followers", List.class)).isEmpty();
            assertThat(job.read("$.instances[0].id", String.class)).isEqualTo(INSTANCE);
            assertThat(job.read("$.instances[0].enabled", Boolean.class)).isTrue();
            assertThat(job.read("$.instances[0].items", List.class)).containsExactly(0, 1, 2, 3);
            Map<String, Object> item = job.read("$.items[1]");
            assertThat(item)
                    .containsEntry("item", 1)
                    .containsEntry("parameter", "Shanghai")
                    .containsEntry("instance", INSTANCE)
                    .containsEntry("disabled", false)
                    .containsEntry("failoverInstance", null)
                    .containsEntry("checkpoint", null)
                    .containsKey("running");
            Map<String, Object> execution = job.read("$.recentExecutions[0]");
            assertThat(execution)
                    .containsEntry("instance", INSTANCE)
                    .containsEntry("outcome", "SUCCESS")
                    .containsEntry("source", "NORMAL")
                    .containsKeys("item", "fireTime", "start", "end");
            Instant start = Instant.parse((String) execution.get("start"));
            assertThat(Instant.parse((String) execution.get("end"))).isAfterOrEqualTo(start);
            assertThat(Instant.parse((String) execution.get("fireTime"))).isBeforeOrEqualTo(start);
        });
    }

    @Test
    void pagesThroughAJobsExecutionsNewestFirst() {
        eventually().untilAsserted(() -> {
            DocumentContext page = get("/actuator/sharding/orderSync/executions?page=0&size=3", 200);
            assertThat(page.read("$.job", String.class)).isEqualTo("orderSync");
            assertThat(page.read("$.store", String.class)).isEqualTo("memory");
            assertThat(page.read("$.size", Integer.class)).isEqualTo(3);
            assertThat(page.read("$.writes", Object.class)).isNull();
            List<String> starts = page.read("$.executions[*].start");
            assertThat(starts).hasSize(3);
            assertThat(Instant.parse(starts.get(0))).isAfterOrEqualTo(Instant.parse(starts.get(1)));
            Map<String, Object> execution = page.read("$.executions[0]");
            assertThat(execution)
                    .containsEntry("shardingTotalCount", 4)
                    .containsEntry("retry", 0)
                    .containsKeys("parameter", "jobParameter", "outcome", "source");
        });
    }

    @Test
    void answersNotFoundForAnUnknownViewOfAJob() throws Exception {
        assertThat(send("GET", "/actuator/sharding/orderSync/nothing", null).statusCode())
                .isEqualTo(404);
        assertThat(send("GET", "/actuator/sharding/noSuchJob/executions", null).statusCode())
                .isEqualTo(404);
    }

    @Test
    void answersNotFoundForAnUnknownJob() throws Exception {
        assertThat(send("GET", "/actuator/sharding/noSuchJob", null).statusCode())
                .isEqualTo(404);
        assertThat(post("/actuator/sharding/noSuchJob", "trigger").statusCode()).isEqualTo(404);
        assertThat(post("/actuator/sharding/noSuchJob/items/0", "disable").statusCode())
                .isEqualTo(404);
    }

    @Test
    void triggersAJobNowAndRecordsAManualExecution() throws Exception {
        awaitSharded("manualReport");
        HttpResponse<String> response = post("/actuator/sharding/manualReport", "trigger");
        assertThat(response.statusCode()).isEqualTo(200);
        DocumentContext answer = JsonPath.parse(response.body());
        assertThat(answer.read("$", Map.class)).containsOnlyKeys("job", "target", "action", "result", "fireTime");
        assertThat(answer.read("$.result", String.class)).contains("fire started");
        String fireTime = answer.read("$.fireTime", String.class);
        assertThat(Instant.parse(fireTime)).isBeforeOrEqualTo(Instant.now());
        eventually()
                .untilAsserted(() -> assertThat(executionsOf("manualReport", fireTime))
                        .extracting(execution -> execution.get("source"), execution -> execution.get("jobParameter"))
                        .containsOnly(tuple("MANUAL", "monthly"))
                        .hasSize(2));
    }

    @Test
    void triggersAJobWithAJobParameterForThatFireOnly() throws Exception {
        awaitSharded("manualReport");
        HttpResponse<String> response = send(
                "POST",
                "/actuator/sharding/manualReport",
                "{\"action\":\"trigger\",\"jobParameter\":\"rerun of November\"}");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        String fireTime = JsonPath.parse(response.body()).read("$.fireTime", String.class);
        assertThat(JsonPath.parse(response.body()).read("$.result", String.class))
                .contains(fireTime);

        eventually()
                .untilAsserted(() -> assertThat(executionsOf("manualReport", fireTime))
                        .extracting(execution -> execution.get("item"), execution -> execution.get("jobParameter"))
                        .containsExactlyInAnyOrder(tuple(0, "rerun of November"), tuple(1, "rerun of November")));
        assertThat(executionsOf("manualReport", fireTime))
                .extracting(execution -> execution.get("source"))
                .containsOnly("MANUAL");
    }

    @Test
    void answersConflictForATriggerOfADisabledJob() throws Exception {
        awaitSharded("orderSync");
        assertThat(post("/actuator/sharding/orderSync", "disable").statusCode()).isEqualTo(200);
        try {
            eventually()
                    .untilAsserted(() -> assertThat(post("/actuator/sharding/orderSync", "trigger")
                                    .statusCode())
                            .isEqualTo(409));
            HttpResponse<String> refused = post("/actuator/sharding/orderSync", "trigger");
            assertThat(JsonPath.parse(refused.body()).read("$", Map.class))
                    .containsOnlyKeys("job", "target", "action", "result");
            assertThat(JsonPath.parse(refused.body()).read("$.result", String.class))
                    .contains("disabled");
        } finally {
            assertThat(post("/actuator/sharding/orderSync", "enable").statusCode())
                    .isEqualTo(200);
        }
    }

    @Test
    void disablesAndEnablesAnItem() throws Exception {
        awaitSharded("orderSync");
        assertThat(post("/actuator/sharding/orderSync/items/2", "disable").statusCode())
                .isEqualTo(200);
        eventually()
                .untilAsserted(() -> assertThat(
                                get("/actuator/sharding/orderSync", 200).read("$.items[2].disabled", Boolean.class))
                        .isTrue());
        assertThat(post("/actuator/sharding/orderSync/items/2", "enable").statusCode())
                .isEqualTo(200);
        eventually()
                .untilAsserted(() -> assertThat(
                                get("/actuator/sharding/orderSync", 200).read("$.items[2].disabled", Boolean.class))
                        .isFalse());
    }

    @Test
    void answersBadRequestForABadItemOrAction() throws Exception {
        awaitSharded("orderSync");
        assertThat(post("/actuator/sharding/orderSync/items/4", "disable").statusCode())
                .isEqualTo(400);
        assertThat(post("/actuator/sharding/orderSync/items/-1", "disable").statusCode())
                .isEqualTo(400);
        assertThat(post("/actuator/sharding/orderSync/items/two", "disable").statusCode())
                .isEqualTo(400);
        assertThat(post("/actuator/sharding/orderSync/items/1", "explode").statusCode())
                .isEqualTo(400);
        assertThat(post("/actuator/sharding/orderSync", "explode").statusCode()).isEqualTo(400);
        assertThat(post("/actuator/sharding/orderSync/shards/1", "disable").statusCode())
                .isEqualTo(400);
    }

    @Test
    void refusesATriggerWithATwoMegabyteJobParameterWithABadRequestAndTheApplicationStaysConnected() throws Exception {
        awaitSharded("manualReport");
        Instant refusedAt = Instant.now();

        HttpResponse<String> refused = send(
                "POST",
                "/actuator/sharding/manualReport",
                "{\"action\":\"trigger\",\"jobParameter\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}");

        assertThat(refused.statusCode()).isEqualTo(400);
        DocumentContext answer = JsonPath.parse(refused.body());
        assertThat(answer.read("$", Map.class)).containsOnlyKeys("job", "target", "action", "result", "input");
        assertThat(answer.read("$.input", String.class)).isEqualTo("jobParameter");
        assertThat(answer.read("$.result", String.class))
                .contains("'manualReport'", "jobParameter", "2097152 bytes", "16384")
                .hasSizeLessThan(300);
        // The connection every job shares is up, the other job keeps firing, and nothing fired for this one.
        eventually().untilAsserted(() -> {
            assertThat(get("/actuator/sharding", 200).read("$.connected", Boolean.class))
                    .isTrue();
            assertThat(get("/actuator/health", 200).read("$.components.sharding.status", String.class))
                    .isEqualTo("UP");
            List<String> fireTimes = get("/actuator/sharding/orderSync", 200).read("$.recentExecutions[*].fireTime");
            assertThat(fireTimes)
                    .anySatisfy(fireTime -> assertThat(Instant.parse(fireTime)).isAfter(refusedAt));
        });
        List<String> reportFires = get("/actuator/sharding/manualReport", 200).read("$.recentExecutions[*].fireTime");
        assertThat(reportFires)
                .allSatisfy(fireTime -> assertThat(Instant.parse(fireTime)).isBefore(refusedAt));
    }

    @Test
    void refusesAJobParameterLargerThanTheLedgerTakesThoughZooKeeperWouldStoreIt() throws Exception {
        awaitSharded("manualReport");
        HttpResponse<String> refused = send(
                "POST",
                "/actuator/sharding/manualReport",
                "{\"action\":\"trigger\",\"jobParameter\":\"" + "x".repeat(17 * 1024) + "\"}");

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
        assertThat(JsonPath.parse(refused.body()).read("$.result", String.class))
                .contains("17408 bytes", "16384");
        HttpResponse<String> within = send(
                "POST",
                "/actuator/sharding/manualReport",
                "{\"action\":\"trigger\",\"jobParameter\":\"" + "x".repeat(16 * 1024) + "\"}");
        assertThat(within.statusCode()).as(within.body()).isEqualTo(200);
    }

    @Test
    void answersBadRequestNamingTheInputForAnItemOutsideTheJobsItemsOrAMalformedInstance() throws Exception {
        awaitSharded("orderSync");

        HttpResponse<String> item = post("/actuator/sharding/orderSync/items/4", "disable");
        assertThat(item.statusCode()).isEqualTo(400);
        assertThat(JsonPath.parse(item.body()).read("$.input", String.class)).isEqualTo("item");
        assertThat(JsonPath.parse(item.body()).read("$.result", String.class))
                .contains("'orderSync'", "item 4 is outside 0..3");
        HttpResponse<String> instance = post("/actuator/sharding/orderSync/instances/no*such", "disable");
        assertThat(instance.statusCode()).isEqualTo(400);
        assertThat(JsonPath.parse(instance.body()).read("$.input", String.class))
                .isEqualTo("instanceId");

        DocumentContext job = get("/actuator/sharding/orderSync", 200);
        assertThat(job.read("$.items[*].disabled", List.class)).containsOnly(false);
        assertThat(job.read("$.instances[*].enabled", List.class)).containsOnly(true);
    }

    @Test
    void refusesToDisableOrEnableAnInstanceTheJobDoesNotKnow() throws Exception {
        awaitSharded("orderSync");

        HttpResponse<String> disable = post("/actuator/sharding/orderSync/instances/http-tset", "disable");

        assertThat(disable.statusCode()).as(disable.body()).isEqualTo(400);
        DocumentContext answer = JsonPath.parse(disable.body());
        assertThat(answer.read("$", Map.class)).containsOnlyKeys("job", "target", "action", "result", "input");
        assertThat(answer.read("$.target", String.class)).isEqualTo("instances/http-tset");
        assertThat(answer.read("$.input", String.class)).isEqualTo("instanceId");
        assertThat(answer.read("$.result", String.class))
                .contains("'orderSync'", "'http-tset' is not a registered instance", "registered: " + INSTANCE);
        HttpResponse<String> enable = post("/actuator/sharding/orderSync/instances/http-tset", "enable");
        assertThat(enable.statusCode()).as(enable.body()).isEqualTo(400);
        assertThat(JsonPath.parse(enable.body()).read("$.result", String.class))
                .contains("'http-tset' is not a registered instance of the job nor a disabled one");
    }

    @Test
    void enablesAnInstanceThatWasDisabledAndHasGoneSoItsFlagStaysClearable() throws Exception {
        awaitSharded("orderSync");
        JobCoordinator job = operations.job("orderSync").orElseThrow();
        // The core's own operation, which takes an instance not registered now (the next pod of a deployment).
        job.disableInstance("gone-pod");
        eventually().untilAsserted(() -> assertThat(job.disabledInstances()).contains("gone-pod"));

        HttpResponse<String> enable = post("/actuator/sharding/orderSync/instances/gone-pod", "enable");

        assertThat(enable.statusCode()).as(enable.body()).isEqualTo(200);
        eventually().untilAsserted(() -> assertThat(job.disabledInstances()).doesNotContain("gone-pod"));
    }

    @Test
    void refusesAnItemSentToTheJobsPathRatherThanDisableTheWholeJob() throws Exception {
        awaitSharded("orderSync");

        HttpResponse<String> refused =
                send("POST", "/actuator/sharding/orderSync", "{\"action\":\"disable\",\"item\":99}");

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
        DocumentContext answer = JsonPath.parse(refused.body());
        assertThat(answer.read("$", Map.class)).containsOnlyKeys("job", "target", "action", "result", "input");
        assertThat(answer.read("$.action", String.class)).isEqualTo("disable");
        assertThat(answer.read("$.input", String.class)).isEqualTo("item");
        assertThat(answer.read("$.result", String.class))
                .contains("'orderSync'", "disable-job does not take 'item'", "disable-item takes item")
                .contains("nothing was changed");
        assertThat(get("/actuator/sharding", 200).read("$.jobs[0].disabled", Boolean.class))
                .isFalse();
    }

    @Test
    void refusesAFieldItsActionDoesNotTakeOnTheJobsPathAndAnItemsOrAnInstancesPath() throws Exception {
        awaitSharded("orderSync");

        HttpResponse<String> misspelt =
                send("POST", "/actuator/sharding/manualReport", "{\"action\":\"trigger\",\"jobParamter\":\"eu-only\"}");
        assertThat(misspelt.statusCode()).as(misspelt.body()).isEqualTo(400);
        assertThat(JsonPath.parse(misspelt.body()).read("$.input", String.class))
                .isEqualTo("jobParamter");
        assertThat(JsonPath.parse(misspelt.body()).read("$.result", String.class))
                .contains("trigger does not take 'jobParamter' (it takes jobParameter)");

        HttpResponse<String> anotherActions =
                send("POST", "/actuator/sharding/orderSync", "{\"action\":\"reshard\",\"cron\":\"0 0 3 * * *\"}");
        assertThat(anotherActions.statusCode()).as(anotherActions.body()).isEqualTo(400);
        assertThat(JsonPath.parse(anotherActions.body()).read("$.result", String.class))
                .contains("reshard does not take 'cron' (it takes no field but the action)");

        HttpResponse<String> onAnItem =
                send("POST", "/actuator/sharding/orderSync/items/2", "{\"action\":\"disable\",\"jobParameter\":\"x\"}");
        assertThat(onAnItem.statusCode()).as(onAnItem.body()).isEqualTo(400);
        assertThat(JsonPath.parse(onAnItem.body()).read("$.input", String.class))
                .isEqualTo("jobParameter");
        assertThat(JsonPath.parse(onAnItem.body()).read("$.result", String.class))
                .contains("disable-item does not take 'jobParameter' (it takes item)");

        HttpResponse<String> onAnInstance = send(
                "POST",
                "/actuator/sharding/orderSync/instances/" + INSTANCE + "?force=true",
                "{\"action\":\"disable\"}");
        assertThat(onAnInstance.statusCode()).as(onAnInstance.body()).isEqualTo(400);
        assertThat(JsonPath.parse(onAnInstance.body()).read("$.input", String.class))
                .isEqualTo("force");
    }

    @Test
    void aRefusedTypoChangesNothing() throws Exception {
        awaitSharded("orderSync");
        awaitSharded("manualReport");
        JobCoordinator orderSync = operations.job("orderSync").orElseThrow();
        List<Instant> manualFiresBefore = manualFires();
        List<String> typos = List.of(
                "/actuator/sharding/orderSync|{\"action\":\"disable\",\"item\":1}",
                "/actuator/sharding/orderSync|{\"action\":\"disable\",\"instance\":\"" + INSTANCE + "\"}",
                "/actuator/sharding/orderSync/instances/no-such-pod|{\"action\":\"disable\"}",
                "/actuator/sharding/orderSync/items/1|{\"action\":\"disable\",\"itme\":2}",
                "/actuator/sharding/orderSync|{\"action\":\"items\",\"count\":8,\"handler\":\"x\"}",
                "/actuator/sharding/manualReport|{\"action\":\"trigger\",\"jobParamter\":\"eu-only\"}");
        for (String typo : typos) {
            String[] pathAndBody = typo.split("\\|", 2);
            HttpResponse<String> refused = send("POST", pathAndBody[0], pathAndBody[1]);
            assertThat(refused.statusCode()).as("%s: %s", typo, refused.body()).isEqualTo(400);
        }

        // A change asked after the typos, once seen, shows that any change of theirs would have been seen too: the
        // registry's cache applies ZooKeeper's changes in the order they were written.
        assertThat(post("/actuator/sharding/orderSync/items/3", "disable").statusCode())
                .isEqualTo(200);
        try {
            eventually()
                    .untilAsserted(() -> assertThat(orderSync.disabledItems()).containsExactly(3));
            assertThat(orderSync.configuration().disabled()).isFalse();
            assertThat(orderSync.configuration().shardingTotalCount()).isEqualTo(4);
            assertThat(orderSync.disabledInstances()).isEmpty();
            assertThat(manualFires()).isEqualTo(manualFiresBefore);
        } finally {
            assertThat(post("/actuator/sharding/orderSync/items/3", "enable").statusCode())
                    .isEqualTo(200);
            eventually()
                    .untilAsserted(() -> assertThat(orderSync.disabledItems()).isEmpty());
        }
    }

    @Test
    void refusesACronThatCannotBeReadOrNeverFiresWithABadRequest() throws Exception {
        registry.registerHandler("cronChecked", context -> {});

        HttpResponse<String> defined = send(
                "POST",
                "/actuator/sharding/badCron",
                "{\"action\":\"define\",\"handler\":\"cronChecked\",\"cron\":\"0 0 25 * * *\"}");
        assertThat(defined.statusCode()).as(defined.body()).isEqualTo(400);
        assertThat(JsonPath.parse(defined.body()).read("$.input", String.class)).isEqualTo("cron");
        assertThat(JsonPath.parse(defined.body()).read("$.result", String.class))
                .contains("'badCron'", "'0 0 25 * * *'");
        assertThat(registry.definedJobs()).doesNotContain("badCron");

        HttpResponse<String> never =
                send("POST", "/actuator/sharding/orderSync", "{\"action\":\"cron\",\"cron\":\"0 0 0 30 2 *\"}");
        assertThat(never.statusCode()).as(never.body()).isEqualTo(400);
        assertThat(JsonPath.parse(never.body()).read("$.result", String.class)).contains("never fires");
        assertThat(get("/actuator/sharding/orderSync", 200).read("$.cron", String.class))
                .isEqualTo("* * * * * *");
    }

    @Test
    void disablesAndEnablesTheJobOnEveryInstance() throws Exception {
        awaitSharded("orderSync");
        assertThat(post("/actuator/sharding/orderSync", "disable").statusCode()).isEqualTo(200);
        eventually()
                .untilAsserted(
                        () -> assertThat(get("/actuator/sharding", 200).read("$.jobs[0].disabled", Boolean.class))
                                .isTrue());
        assertThat(post("/actuator/sharding/orderSync", "enable").statusCode()).isEqualTo(200);
        eventually()
                .untilAsserted(
                        () -> assertThat(get("/actuator/sharding", 200).read("$.jobs[0].disabled", Boolean.class))
                                .isFalse());
    }

    @Test
    void disablesAnInstanceSoItsItemsLeaveItAndEnablesItAgain() throws Exception {
        awaitSharded("manualReport");
        assertThat(post("/actuator/sharding/manualReport/instances/" + INSTANCE, "disable")
                        .statusCode())
                .isEqualTo(200);
        eventually().untilAsserted(() -> {
            DocumentContext job = get("/actuator/sharding/manualReport", 200);
            assertThat(job.read("$.instances[0].enabled", Boolean.class)).isFalse();
        });
        assertThat(post("/actuator/sharding/manualReport/instances/" + INSTANCE, "enable")
                        .statusCode())
                .isEqualTo(200);
        assertThat(post("/actuator/sharding/manualReport", "reshard").statusCode())
                .isEqualTo(200);
        eventually().untilAsserted(() -> {
            DocumentContext job = get("/actuator/sharding/manualReport", 200);
            assertThat(job.read("$.instances[0].enabled", Boolean.class)).isTrue();
            assertThat(job.read("$.instances[0].items", List.class)).containsExactly(0, 1);
            assertThat(job.read("$.leader", String.class)).isEqualTo(INSTANCE);
        });
    }

    @Test
    void reportsHealthAndMeters() {
        eventually().untilAsserted(() -> {
            DocumentContext health = get("/actuator/health", 200);
            assertThat(health.read("$.components.sharding.status", String.class))
                    .isEqualTo("UP");
            assertThat(meters.get("sharding.job.execution")
                            .tags("job", "orderSync", "outcome", "SUCCESS")
                            .timer()
                            .count())
                    .isPositive();
            assertThat(meters.get("sharding.job.items.owned")
                            .tag("job", "orderSync")
                            .gauge()
                            .value())
                    .isEqualTo(4.0);
            assertThat(meters.get("sharding.job.reshards")
                            .tag("job", "orderSync")
                            .functionCounter()
                            .count())
                    .isGreaterThanOrEqualTo(0.0);
            assertThat(meters.get("sharding.job.failovers")
                            .tag("job", "orderSync")
                            .counter()
                            .count())
                    .isZero();
            // A fire due while the application started, before it was ready, had no owner: made up once (misfire
            // policy ONCE), its four items at most.
            assertThat(meters.get("sharding.job.misfires.made.up")
                            .tag("job", "orderSync")
                            .counter()
                            .count())
                    .isLessThanOrEqualTo(4.0);
            assertThat(meters.get("sharding.job.items.running")
                            .tag("job", "orderSync")
                            .gauge()
                            .value())
                    .isBetween(0.0, 4.0);
            assertThat(meters.get("sharding.job.fire.lag")
                            .tag("job", "orderSync")
                            .timer()
                            .count())
                    .isPositive();
            assertThat(meters.get("sharding.job.last.success.age")
                            .tag("job", "orderSync")
                            .gauge()
                            .value())
                    .as("seconds since the last fire whose items all succeeded")
                    .isBetween(0.0, 60.0);
        });
    }

    @Test
    void definesChangesAndRemovesAJobAtRunTime() throws Exception {
        List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
        registry.registerHandler("exporter", context -> ran.add(context.itemParameter()));

        HttpResponse<String> defined = send(
                "POST",
                "/actuator/sharding/export",
                "{\"action\":\"define\",\"handler\":\"exporter\",\"cron\":\"* * * * * *\",\"count\":2,"
                        + "\"parameters\":\"0=eu,1=us\"}");
        assertThat(defined.statusCode()).as(defined.body()).isEqualTo(200);
        eventually().untilAsserted(() -> assertThat(ran).contains("eu", "us"));

        HttpResponse<String> items = send(
                "POST",
                "/actuator/sharding/export",
                "{\"action\":\"items\",\"count\":3,\"parameters\":\"0=eu,1=us,2=apac\"}");
        assertThat(items.statusCode()).as(items.body()).isEqualTo(200);
        eventually().untilAsserted(() -> assertThat(ran).contains("apac"));
        HttpResponse<String> cron =
                send("POST", "/actuator/sharding/export", "{\"action\":\"cron\",\"cron\":\"0 0 3 * * *\"}");
        assertThat(cron.statusCode()).as(cron.body()).isEqualTo(200);
        eventually()
                .untilAsserted(
                        () -> assertThat(get("/actuator/sharding/export", 200).read("$.cron", String.class))
                                .isEqualTo("0 0 3 * * *"));
        HttpResponse<String> badCron =
                send("POST", "/actuator/sharding/export", "{\"action\":\"cron\",\"cron\":\"not a cron\"}");
        assertThat(badCron.statusCode()).isEqualTo(400);
        assertThat(JsonPath.parse(badCron.body()).read("$.result", String.class))
                .contains("cron");

        assertThat(post("/actuator/sharding/export", "remove").statusCode()).isEqualTo(200);
        eventually().untilAsserted(() -> {
            assertThat(registry.definedJobs()).doesNotContain("export");
            assertThat(send("GET", "/actuator/sharding/export", null).statusCode())
                    .isEqualTo(404);
        });
        // A remove while the removal still deletes the job's state starts it again (200); once the state is gone, the
        // job
        // is unknown.
        eventually()
                .untilAsserted(() -> assertThat(
                                post("/actuator/sharding/export", "remove").statusCode())
                        .isEqualTo(404));
    }

    /** The fires of the manual report the ledger holds, read from ZooKeeper: it fires only when triggered. */
    private List<Instant> manualFires() {
        return operations.job("manualReport").orElseThrow().ledger().recentFires(100).stream()
                .map(LedgerFire::fireTime)
                .toList();
    }

    /** This instance's recent executions of the job for one fire. */
    private List<Map<String, Object>> executionsOf(String job, String fireTime) throws Exception {
        List<Map<String, Object>> executions =
                get("/actuator/sharding/" + job, 200).read("$.recentExecutions");
        return executions.stream()
                .filter(execution ->
                        Instant.parse((String) execution.get("fireTime")).equals(Instant.parse(fireTime)))
                .toList();
    }

    /** Waits for a document that may not have the asked-for part yet (no execution recorded so far, say). */
    private static ConditionFactory eventually() {
        return await().atMost(PATIENCE).ignoreException(PathNotFoundException.class);
    }

    private void awaitSharded(String job) {
        eventually()
                .untilAsserted(
                        () -> assertThat(get("/actuator/sharding/" + job, 200).read("$.epoch", Long.class))
                                .isPositive());
    }

    private DocumentContext get(String path, int expectedStatus) throws IOException, InterruptedException {
        HttpResponse<String> response = send("GET", path, null);
        assertThat(response.statusCode())
                .as("GET %s: %s", path, response.body())
                .isEqualTo(expectedStatus);
        return JsonPath.parse(response.body());
    }

    private HttpResponse<String> post(String path, String action) throws IOException, InterruptedException {
        return send("POST", path, "{\"action\":\"" + action + "\"}");
    }

    private HttpResponse<String> send(String method, String path, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .timeout(Duration.ofSeconds(10));
        if (body == null) {
            request.GET();
        } else {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body));
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {

        @Bean
        RecordingJob recordingJob() {
            return new RecordingJob();
        }

        @Bean
        ManualReport manualReport() {
            return new ManualReport();
        }
    }

    /** A job that only runs when triggered: its cron fires once a year. */
    static class ManualReport {

        @ShardedJob(name = "manualReport", cron = "0 0 0 1 1 *", shardingTotalCount = 2, jobParameter = "monthly")
        void report() {}
    }
}
