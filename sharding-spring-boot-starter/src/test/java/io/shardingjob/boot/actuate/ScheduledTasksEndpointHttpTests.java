package io.shardingjob.boot.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import io.shardingjob.boot.RecordingJob;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.registry.RegistryCenter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Boot's {@code /actuator/scheduledtasks} lists the sharded jobs next to the application's {@code @Scheduled} ones. */
@SpringBootTest(
        classes = ScheduledTasksEndpointHttpTests.Service.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "management.endpoints.web.exposure.include=scheduledtasks")
class ScheduledTasksEndpointHttpTests {

    private static final Duration PATIENCE = Duration.ofSeconds(15);

    private static final String NIGHTLY_TARGET = NightlyReport.class.getName() + ".report";

    private static final String WEEKLY_TARGET = WeeklyCleanup.class.getName() + ".cleanUp";

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    private int port;

    @Autowired
    private ShardingOperations operations;

    @Autowired
    private RegistryCenter registry;

    @DynamicPropertySource
    static void zooKeeper(DynamicPropertyRegistry registry) {
        TestZooKeeper.register(registry, "scheduled-tasks-test");
    }

    @Test
    void listsEachShardedJobAsACronTaskWithItsMethodAndNextFire() throws Exception {
        Map<String, Object> nightly = cronTask(NIGHTLY_TARGET);
        assertThat(nightly).containsEntry("expression", "0 0 2 * * *");
        assertThat(nextExecution(nightly)).isCloseTo(nextFire("0 0 2 * * *"), within(2, ChronoUnit.SECONDS));
        assertThat(cronTask("io.shardingjob.boot.RecordingJob.sync")).containsEntry("expression", "* * * * * *");
        assertThat(cronTargets())
                .containsOnlyOnce(NIGHTLY_TARGET, WEEKLY_TARGET, "io.shardingjob.boot.RecordingJob.sync");
    }

    @Test
    void reportsTheLastHandOffOfAJobThatFired() {
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(cronTask("io.shardingjob.boot.RecordingJob.sync"))
                        .extractingByKey("lastExecution")
                        .asInstanceOf(InstanceOfAssertFactories.MAP)
                        .containsEntry("status", "SUCCESS")
                        .containsKey("time"));
    }

    @Test
    void listsTheCronAnOperatorStoredInZooKeeperOnceTheJobFollowsIt() throws Exception {
        JobCoordinator coordinator = operations.job("weeklyCleanup").orElseThrow();
        await().atMost(PATIENCE).until(() -> coordinator.assignment().epoch() > 0);
        assertThat(cronTask(WEEKLY_TARGET)).containsEntry("expression", "0 0 3 * * SUN");

        byte[] changed = JobConfigurationCodec.encode(
                coordinator.configuration().toBuilder().cron("0 15 4 * * *").build());
        registry.client().setData().forPath(new JobNodes("weeklyCleanup").config(), changed);

        await().atMost(PATIENCE).untilAsserted(() -> {
            Map<String, Object> weekly = cronTask(WEEKLY_TARGET);
            assertThat(weekly).containsEntry("expression", "0 15 4 * * *");
            assertThat(nextExecution(weekly)).isCloseTo(nextFire("0 15 4 * * *"), within(2, ChronoUnit.SECONDS));
        });
        assertThat(cronTargets()).containsOnlyOnce(WEEKLY_TARGET);
    }

    private Map<String, Object> cronTask(String target) throws Exception {
        List<Map<String, Object>> tasks =
                JsonPath.parse(scheduledTasks()).read("$.cron[?(@.runnable.target == '" + target + "')]");
        assertThat(tasks).as("cron tasks with target %s", target).hasSize(1);
        return tasks.get(0);
    }

    private List<String> cronTargets() throws Exception {
        return JsonPath.parse(scheduledTasks()).read("$.cron[*].runnable.target");
    }

    private String scheduledTasks() throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/scheduledtasks"))
                        .timeout(Duration.ofSeconds(10))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    @SuppressWarnings("unchecked")
    private static Instant nextExecution(Map<String, Object> task) {
        return Instant.parse((String) ((Map<String, Object>) task.get("nextExecution")).get("time"));
    }

    private static Instant nextFire(String cron) {
        return CronExpression.parse(cron)
                .next(ZonedDateTime.now(ZoneId.systemDefault()))
                .toInstant();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {

        @Bean
        RecordingJob recordingJob() {
            return new RecordingJob();
        }

        @Bean
        NightlyReport nightlyReport() {
            return new NightlyReport();
        }

        @Bean
        WeeklyCleanup weeklyCleanup() {
            return new WeeklyCleanup();
        }
    }

    static class NightlyReport {

        @ShardedJob(name = "nightlyReport", cron = "0 0 2 * * *", shardingTotalCount = 2)
        void report() {}
    }

    static class WeeklyCleanup {

        @ShardedJob(name = "weeklyCleanup", cron = "0 0 3 * * SUN")
        void cleanUp() {}
    }
}
