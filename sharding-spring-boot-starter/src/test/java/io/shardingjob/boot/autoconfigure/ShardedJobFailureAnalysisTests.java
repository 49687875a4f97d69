package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.RecordingJob;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * Every way to misconfigure a job fails start-up with an analysis naming the job, the property and the fix. The jobs
 * point at a ZooKeeper that does not exist: validation comes before connecting, so none of these waits for it. Where
 * an action suggests a fix that needs a real ZooKeeper to show it starts, that test brings its own.
 */
class ShardedJobFailureAnalysisTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withUserConfiguration(JobConfiguration.class)
            .withPropertyValues(
                    "sharding.zookeeper.connect-string=127.0.0.1:" + closedPort(),
                    "sharding.zookeeper.connection-timeout=1s",
                    "sharding.instance-id=bad-config-test");

    @Test
    void explainsAnInvalidCron() {
        FailureAnalysis analysis = analyze(runner.withPropertyValues("sharding.jobs.orderSync.cron=0 0 25 * * *"));
        assertThat(analysis.getDescription())
                .contains("Sharded job 'orderSync'", "invalid cron", "RecordingJob.sync(ShardingContext)")
                .contains("sharding.jobs.orderSync.cron");
        assertThat(analysis.getAction())
                .contains(
                        "Set sharding.jobs.orderSync.cron (or @ShardedJob(cron) on"
                                + " io.shardingjob.boot.RecordingJob.sync(ShardingContext)) to a cron expression",
                        "'0/10 * * * * *'");
    }

    @Test
    void explainsANegativeRetryCount() {
        FailureAnalysis analysis = analyze(runner.withPropertyValues("sharding.jobs.orderSync.retries=-1"));
        assertThat(analysis.getDescription())
                .contains("'orderSync'", "retries", "must be 0 or more, was -1", "sharding.jobs.orderSync.retries");
        assertThat(analysis.getAction()).contains("a whole number of 0 or more");
    }

    @Test
    void explainsANegativeTimeout() {
        FailureAnalysis analysis = analyze(runner.withPropertyValues("sharding.jobs.orderSync.timeout=-5s"));
        assertThat(analysis.getDescription())
                .contains("'orderSync'", "timeout", "must not be negative", "sharding.jobs.orderSync.timeout");
        assertThat(analysis.getAction()).contains("'500ms', '5s' or 'PT5S'");
    }

    @Test
    void explainsACronWithTheWrongNumberOfFields() {
        FailureAnalysis analysis = analyze(runner.withPropertyValues("sharding.jobs.orderSync.cron=0/10 * * * *"));
        assertThat(analysis.getDescription()).contains("'orderSync'", "has 5 fields", "sharding.jobs.orderSync.cron");
        assertThat(analysis.getAction()).contains("six fields, seconds first");
    }

    @Test
    void explainsAShardingTotalCountBelowOne() {
        FailureAnalysis analysis = analyze(runner.withPropertyValues("sharding.jobs.orderSync.sharding-total-count=0"));
        assertThat(analysis.getDescription())
                .contains("'orderSync'", "shardingTotalCount", "must be at least 1, was 0")
                .contains("sharding.jobs.orderSync.sharding-total-count");
        assertThat(analysis.getAction())
                .contains("sharding.jobs.orderSync.sharding-total-count", "a whole number from 1 to 10000");
    }

    @Test
    void explainsAShardingTotalCountBeyondWhatTheRegistryCanHold() {
        FailureAnalysis analysis =
                analyze(runner.withPropertyValues("sharding.jobs.orderSync.sharding-total-count=100000000"));
        assertThat(analysis.getDescription())
                .contains("'orderSync'", "shardingTotalCount", "must be at most 10000, was 100000000", "jute.maxbuffer")
                .contains("sharding.jobs.orderSync.sharding-total-count");
        assertThat(analysis.getAction())
                .contains("sharding.jobs.orderSync.sharding-total-count", "a whole number from 1 to 10000");
    }

    @Test
    void explainsMalformedItemParameters() {
        FailureAnalysis analysis =
                analyze(runner.withPropertyValues("sharding.jobs.orderSync.sharding-item-parameters=Beijing,Shanghai"));
        assertThat(analysis.getDescription())
                .contains("'orderSync'", "shardingItemParameters", "'Beijing' is not of the form item=parameter")
                .contains("sharding.jobs.orderSync.sharding-item-parameters");
        assertThat(analysis.getAction()).contains("item=parameter pairs", "'0=Beijing,1=Shanghai'");
    }

    @Test
    void explainsItemParametersOutsideTheItems() {
        FailureAnalysis analysis =
                analyze(runner.withPropertyValues("sharding.jobs.orderSync.sharding-item-parameters=0=Beijing,7=Xian"));
        assertThat(analysis.getDescription())
                .contains("'orderSync'", "item 7 is outside 0..3", "sharding.jobs.orderSync.sharding-item-parameters");
        assertThat(analysis.getAction()).contains("or raise sharding-total-count");
    }

    @Test
    void explainsDynamicShardingBesideTheAnnotationsItemParametersAndOffersBothWaysOut() {
        FailureAnalysis analysis = analyze(runner.withPropertyValues("sharding.jobs.orderSync.dynamic-sharding=true"));
        assertThat(analysis.getDescription())
                .contains(
                        "Sharded job 'orderSync'",
                        "invalid shardingItemParameters",
                        "'0=Beijing,1=Shanghai,2=Guangzhou,3=Shenzhen' cannot be combined with dynamicSharding=true",
                        "the number of items then follows the number of live instances")
                .endsWith("Property: sharding.jobs.orderSync.sharding-item-parameters");
        assertThat(analysis.getAction())
                .isEqualTo("Set sharding.jobs.orderSync.sharding-item-parameters"
                        + " (or @ShardedJob(shardingItemParameters) on"
                        + " io.shardingjob.boot.RecordingJob.sync(ShardingContext)) to an empty value, since with"
                        + " dynamic sharding the items follow the live instances and no item has a fixed parameter,"
                        + " or set sharding.jobs.orderSync.dynamic-sharding (or @ShardedJob(dynamicSharding) on"
                        + " io.shardingjob.boot.RecordingJob.sync(ShardingContext)) to false to keep a fixed"
                        + " sharding-total-count with a parameter per item.");
    }

    @Test
    void explainsItemParametersPastWhatZooKeeperTakesWithTheArithmetic() {
        // Refused by the job's coordinator at its start, before it writes anything: on a real ZooKeeper.
        String parameters = "0=" + "x".repeat(299_996) + ",1=a,2=b,3=c";
        FailureAnalysis analysis = analyze(runner.withPropertyValues(TestZooKeeper.properties("past-the-budget"))
                .withPropertyValues("sharding.jobs.orderSync.sharding-item-parameters=" + parameters));

        assertThat(analysis.getDescription())
                .contains("Sharded job 'orderSync': cannot run within ZooKeeper's limits")
                .contains("the item parameters take 300,010 bytes in UTF-8 of the 262,144 bytes allowed (114 % of"
                        + " the limit, past it)")
                .contains("Property: sharding.jobs.orderSync.sharding-item-parameters");
        assertThat(analysis.getAction())
                .startsWith("Set sharding.jobs.orderSync.sharding-item-parameters (or @ShardedJob("
                        + "shardingItemParameters) on io.shardingjob.boot.RecordingJob.sync(ShardingContext)) so that"
                        + " the job fits: a shorter value");
    }

    @Test
    void startsWithDynamicShardingOnceAnEmptyPropertyClearsTheAnnotationsItemParameters() {
        // The test ZooKeeper's properties come last, so they replace the closed port.
        runner.withPropertyValues(TestZooKeeper.properties("dynamic-without-parameters"))
                .withPropertyValues(
                        "sharding.jobs.orderSync.dynamic-sharding=true",
                        "sharding.jobs.orderSync.sharding-item-parameters=")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    io.shardingjob.core.config.JobConfiguration configuration = context.getBean(
                                    ShardingOperations.class)
                            .job(RecordingJob.NAME)
                            .orElseThrow()
                            .configuration();
                    assertThat(configuration.dynamicSharding()).isTrue();
                    assertThat(configuration.itemParameters().asMap()).isEmpty();
                });
    }

    @Test
    void explainsAnUnknownTimeZone() {
        FailureAnalysis analysis = analyze(runner.withPropertyValues("sharding.jobs.orderSync.time-zone=Mars/Olympus"));
        assertThat(analysis.getDescription())
                .contains("'orderSync'", "Mars/Olympus", "sharding.jobs.orderSync.time-zone");
        assertThat(analysis.getAction()).contains("'Asia/Shanghai'");
    }

    @Test
    void explainsAnUnknownStrategy() {
        FailureAnalysis analysis = analyze(runner.withPropertyValues("sharding.jobs.orderSync.strategy=roundRobin"));
        assertThat(analysis.getDescription())
                .contains("'orderSync'", "unknown sharding strategy 'roundRobin'", "sharding.jobs.orderSync.strategy");
        assertThat(analysis.getAction()).contains("one of [average, odevity, rotate, sticky]", "ShardingStrategy bean");
    }

    @Test
    void explainsTwoJobsWithOneName() {
        FailureAnalysis analysis = analyze(runner.withUserConfiguration(DuplicateJobConfiguration.class));
        assertThat(analysis.getDescription())
                .contains("'orderSync'", "declared twice", "RecordingJob.sync(ShardingContext)", "DuplicateJob.sync()");
        assertThat(analysis.getAction()).contains("another @ShardedJob(name)");
    }

    @Test
    void explainsAJobMethodWithAWrongSignature() {
        FailureAnalysis analysis = analyze(runner.withUserConfiguration(WrongSignatureConfiguration.class));
        assertThat(analysis.getDescription())
                .contains("'settle'", "WrongSignatureJob.settle(String)", "single ShardingContext parameter or none");
        assertThat(analysis.getAction()).contains("'void settle(ShardingContext context)'", "'void settle()'");
    }

    @Test
    void explainsPropertiesForAJobThatDoesNotExist() {
        FailureAnalysis analysis = analyze(runner.withPropertyValues("sharding.jobs.orderSnyc.cron=0 * * * * *"));
        assertThat(analysis.getDescription())
                .contains("sharding.jobs.orderSnyc is set", "no @ShardedJob method declares a job named 'orderSnyc'")
                .contains("[orderSync]");
        assertThat(analysis.getAction()).contains("Rename sharding.jobs.orderSnyc", "or remove it");
    }

    @Test
    void refusesAMisspeltJobProperty() {
        runner.withPropertyValues("sharding.jobs.orderSync.crn=0 * * * * *")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(UnboundConfigurationPropertiesException.class)
                        .hasMessageContaining("sharding.jobs.ordersync.crn"));
    }

    @Test
    void explainsAZooKeeperThatCannotBeReached() {
        runner.run(context -> {
            FailureAnalysis analysis = new RegistryUnavailableFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription())
                    .contains("could not reach ZooKeeper", "127.0.0.1:", "within 1000 ms")
                    .contains("sharding.zookeeper.connect-string");
            assertThat(analysis.getAction())
                    .contains("sharding.zookeeper.connect-string", "sharding.zookeeper.connection-timeout")
                    .contains("sharding.zookeeper.embedded.enabled=true");
        });
    }

    @Test
    void registersTheAnalyzersWithSpringBoot() {
        List<String> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
                .load(FailureAnalyzer.class, null, (type, implementation, failure) -> {
                    // Boot's own analyzers need arguments this test does not give; only ours matter here.
                })
                .stream()
                .map(analyzer -> analyzer.getClass().getName())
                .toList();
        assertThat(analyzers)
                .contains(
                        ShardedJobFailureAnalyzer.class.getName(), RegistryUnavailableFailureAnalyzer.class.getName());
    }

    private static FailureAnalysis analyze(ApplicationContextRunner runner) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        runner.run(context -> {
            assertThat(context).hasFailed();
            analysis[0] = new ShardedJobFailureAnalyzer().analyze(context.getStartupFailure());
        });
        assertThat(analysis[0]).as("failure analysis").isNotNull();
        return analysis[0];
    }

    private static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class JobConfiguration {

        @Bean
        RecordingJob recordingJob() {
            return new RecordingJob();
        }
    }

    static class DuplicateJob {

        @ShardedJob(name = RecordingJob.NAME, cron = "0 * * * * *")
        void sync() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class DuplicateJobConfiguration {

        @Bean
        DuplicateJob duplicateJob() {
            return new DuplicateJob();
        }
    }

    static class WrongSignatureJob {

        @ShardedJob(name = "settle", cron = "0 * * * * *")
        void settle(String region) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class WrongSignatureConfiguration {

        @Bean
        WrongSignatureJob wrongSignatureJob() {
            return new WrongSignatureJob();
        }
    }
}
