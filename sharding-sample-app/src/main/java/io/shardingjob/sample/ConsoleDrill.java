package io.shardingjob.sample;

import io.shardingjob.boot.ShardedJobRegistry;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ShardingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Component;

/**
 * Two jobs for the console's end-to-end test, off unless {@code sample.console-drill.enabled} is on: {@code drillSource},
 * fired by hand over two items, whose item 1 fails every time but when an operator re-runs it (so that a fire with a
 * failed item, and its re-run from the console, are certain), and {@code drillFollower}, which follows it, so that the
 * console's graph has a chain to draw. Both are defined at run time, as {@link ReportExport} is.
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.console-drill.enabled")
class ConsoleDrill implements ApplicationRunner {

    static final String SOURCE = "drillSource";

    static final String FOLLOWER = "drillFollower";

    private static final Logger log = LoggerFactory.getLogger(ConsoleDrill.class);

    private final ShardedJobRegistry jobs;

    ConsoleDrill(ShardedJobRegistry jobs) {
        this.jobs = jobs;
    }

    @Override
    public void run(ApplicationArguments arguments) {
        jobs.registerHandler(SOURCE, ConsoleDrill::source);
        jobs.registerHandler(FOLLOWER, context -> {});
        define(JobConfiguration.builder(SOURCE).shardingTotalCount(2).build());
        define(JobConfiguration.builder(FOLLOWER)
                .shardingTotalCount(2)
                .after(SOURCE)
                .build());
    }

    private void define(JobConfiguration configuration) {
        if (jobs.definedJobs().contains(configuration.name())) {
            return;
        }
        try {
            jobs.define(configuration, configuration.name());
        } catch (JobConfigurationException definedMeanwhile) {
            log.info("Job {} not defined here: {}", configuration.name(), definedMeanwhile.getMessage());
        }
    }

    private static void source(ShardingContext context) {
        if (context.item() == 1 && context.source() != ExecutionSource.RETRY) {
            throw new IllegalStateException("item 1 of " + SOURCE + " fails until an operator re-runs it");
        }
    }
}
