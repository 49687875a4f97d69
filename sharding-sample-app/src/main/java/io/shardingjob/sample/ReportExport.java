package io.shardingjob.sample;

import io.shardingjob.boot.ShardedJobRegistry;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.execution.ShardingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Component;

/**
 * A job defined while the service runs rather than by an annotation: every copy registers the code ("report-export")
 * when it starts, and the first copy defines the job "reportExport" that runs it, every 20 s over three regions. The
 * definition lives in ZooKeeper, so the other copies run it too; an operator changes or removes it with
 * {@code POST /actuator/sharding/reportExport} ({@code {"action": "cron", "cron": "..."}}, {@code "remove"}) or
 * defines another with the same code ({@code {"action": "define", "handler": "report-export", "cron": "..."}}).
 * {@code sample.report-export.enabled=false} leaves it out (the fault drills do, to judge one job alone).
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.report-export.enabled", matchIfMissing = true)
class ReportExport implements ApplicationRunner {

    static final String HANDLER = "report-export";

    static final String JOB = "reportExport";

    private static final Logger log = LoggerFactory.getLogger(ReportExport.class);

    private final ShardedJobRegistry jobs;

    ReportExport(ShardedJobRegistry jobs) {
        this.jobs = jobs;
    }

    @Override
    public void run(ApplicationArguments arguments) {
        jobs.registerHandler(HANDLER, this::export);
        if (jobs.definedJobs().contains(JOB)) {
            return;
        }
        try {
            jobs.define(
                    JobConfiguration.builder(JOB)
                            .cron("0/20 * * * * *")
                            .shardingTotalCount(3)
                            .shardingItemParameters("0=emea,1=americas,2=apac")
                            .build(),
                    HANDLER);
        } catch (JobConfigurationException definedMeanwhile) {
            // Another copy defined it first, or an operator removed and redefined it: either way it runs here.
            log.info("Job {} not defined here: {}", JOB, definedMeanwhile.getMessage());
        }
    }

    private void export(ShardingContext context) {
        log.info(
                "Exporting the {} report for the fire of {} (item {} of {}) on instance {}",
                context.itemParameter(),
                context.fireTime(),
                context.item(),
                context.shardingTotalCount(),
                context.instanceId());
    }
}
