package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.ExecutionPage;
import io.shardingjob.boot.RecordingJob;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.actuate.ActionResult;
import io.shardingjob.boot.actuate.ExecutionDescriptor;
import io.shardingjob.boot.actuate.ExecutionsDescriptor;
import io.shardingjob.boot.actuate.JobDescriptor;
import io.shardingjob.boot.actuate.ShardingDescriptor;
import io.shardingjob.boot.executionlog.JdbcExecutionLog;
import io.shardingjob.core.execution.ShardingContext;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

/**
 * What a native image of an application with sharded jobs needs, as Spring's ahead-of-time processing of its context
 * (the one a native build runs) registers it: the job methods, called by reflection, and the JSON documents of the
 * endpoint and the schema of the execution log.
 */
class ShardingRuntimeHintsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withUserConfiguration(Jobs.class)
            .withPropertyValues(
                    // Never contacted: AOT processing creates no bean but the context's own post-processors.
                    "sharding.zookeeper.connect-string=localhost:2181",
                    "sharding.execution.jdbc-log.enabled=true",
                    "management.endpoints.web.exposure.include=sharding");

    @Test
    void registersEveryShardedJobMethodForInvocation() {
        RuntimeHints hints = processAheadOfTime();
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RecordingJob.class, "sync"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ParameterlessJob.class, "run"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ParameterlessJob.class, "notAJob"))
                .rejects(hints);
    }

    @Test
    void registersTheJsonBindingOfEveryDocumentOfTheEndpoint() {
        RuntimeHints hints = processAheadOfTime();
        // Boot's processing of the operations covers the bodies they declare ...
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ShardingDescriptor.class, "jobs"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(JobDescriptor.class, "recentExecutions"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ActionResult.class, "result"))
                .accepts(hints);
        // ... and the endpoint's own hints the page of executions, declared Object.
        assertThat(RuntimeHintsPredicates.reflection().onType(ExecutionsDescriptor.class))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ExecutionsDescriptor.class, "executions"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ExecutionDescriptor.class, "fireTime"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ExecutionPage.Writes.class, "dropped"))
                .accepts(hints);
    }

    @Test
    void registersTheSchemaOfTheExecutionLog() {
        assertThat(RuntimeHintsPredicates.resource().forResource(JdbcExecutionLog.SCHEMA))
                .accepts(processAheadOfTime());
    }

    /** Runs what {@code spring-boot:process-aot} runs on the context, and returns the hints it registered. */
    private RuntimeHints processAheadOfTime() {
        DefaultGenerationContext generation = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get(ShardingRuntimeHintsTests.class)), new InMemoryGeneratedFiles());
        runner.prepare(context -> new ApplicationContextAotGenerator()
                .processAheadOfTime((GenericApplicationContext) context.getSourceApplicationContext(), generation));
        return generation.getRuntimeHints();
    }

    @Configuration(proxyBeanMethods = false)
    static class Jobs {

        @Bean
        RecordingJob recordingJob() {
            return new RecordingJob();
        }

        @Bean
        ParameterlessJob parameterlessJob() {
            return new ParameterlessJob();
        }

        @Bean
        DataSource dataSource() {
            return new JdbcDataSource();
        }
    }

    static class ParameterlessJob {

        @ShardedJob(name = "parameterless", cron = "0 0 * * * *")
        void run() {}

        void notAJob(ShardingContext context) {}
    }
}
