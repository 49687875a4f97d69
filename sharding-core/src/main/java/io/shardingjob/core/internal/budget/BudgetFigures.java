package io.shardingjob.core.internal.budget;

import io.shardingjob.core.config.CoordinationBudget;
import io.shardingjob.core.config.CoordinationBudget.Cliff;
import io.shardingjob.core.config.CoordinationBudget.Figures;
import io.shardingjob.core.config.CoordinationBudget.Finding;
import io.shardingjob.core.config.CoordinationBudget.Severity;
import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.operation.InvalidOperationException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.client.ZKClientConfig;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one job's budget figures from what the job already has: its configuration, its schedule, its client's
 * settings, and the ledger's fires as its audits last listed them. No request is sent for them, and what takes work
 * (the fires its schedule makes due within the retention, the configuration's stored size) is worked out once per
 * configuration, not on every read of a meter or a health check.
 */
public final class BudgetFigures {

    private static final Logger log = LoggerFactory.getLogger(BudgetFigures.class);

    private static final String CONSEQUENCE = "; ZooKeeper drops the connection of a client whose request or answer"
            + " passes jute.maxbuffer, which suspends every job of the client";

    private final FireSchedule schedule;

    private final Duration retained;

    private final Clock clock;

    private final CuratorFramework client;

    private volatile @Nullable Projection projection;

    /**
     * @param retained how long the ledger keeps a settled fire: its retention and one reconcile interval
     */
    public BudgetFigures(FireSchedule schedule, Duration retained, Clock clock, CuratorFramework client) {
        this.schedule = schedule;
        this.retained = retained;
        this.clock = clock;
        this.client = client;
    }

    /**
     * The job's budget.
     *
     * @param itemsPerFire the items of a fire: the configured count, or under dynamic sharding the assignment's
     * @param listedFires the fires the latest audit listed in the ledger, -1 before one has
     * @param ledgerWriteOperations the write operations the job's ledger asked for so far
     */
    public CoordinationBudget assess(
            JobConfiguration configuration, int itemsPerFire, long listedFires, long ledgerWriteOperations) {
        Projection known = projection;
        if (known == null || known.configuration() != configuration) {
            int packetBytes = packetBytes(client);
            known = new Projection(
                    configuration,
                    firesDue(
                            schedule,
                            configuration,
                            clock.instant(),
                            retained,
                            packetBytes / BudgetRule.FIRE_NAME_BYTES + 1),
                    JobConfigurationCodec.encode(configuration).length,
                    packetBytes);
            projection = known;
        }
        return BudgetRule.assess(new Figures(
                configuration.name(),
                itemsPerFire,
                Math.max(known.firesDue(), listedFires),
                known.configurationBytes(),
                utf8(configuration.itemParameters().toString()),
                utf8(configuration.jobParameter()),
                known.packetBytes(),
                ledgerWriteOperations));
    }

    /**
     * Refuses, before anything is written, a job past one of ZooKeeper's limits ({@link BudgetRule}), naming the
     * setting and giving the arithmetic; logs the ones it is near. A job past one would start, then drop its client's
     * connection (and suspend every job of the client) at the first audit, trigger or change that reads or writes that
     * much.
     */
    public void refuseAtStart(JobConfiguration configuration) {
        for (Finding finding : asConfigured(configuration).findings()) {
            if (finding.severity() == Severity.REFUSAL) {
                throw new JobConfigurationException(
                        configuration.name(),
                        finding.property(),
                        finding.message() + CONSEQUENCE,
                        finding.cliff() == Cliff.LEDGER_LISTING ? "cron" : null);
            }
            log.warn("Job {} is near a limit of ZooKeeper: {}", configuration.name(), finding.message());
        }
    }

    /**
     * Refuses an operator's change of the stored configuration (a count, a cron) that would take the job past one of
     * ZooKeeper's limits, as {@link #refuseAtStart} refuses a job at start-up: the one rule, with this instance's
     * figures (its client's {@code jute.maxbuffer}, its ledger's retention), refusing only what the change made worse
     * ({@link BudgetRule#refusalsOfChange}).
     *
     * @param current the configuration stored now, null for a job defined now (judged whole)
     * @throws InvalidOperationException naming the input (the count, the cron, ...) and giving the arithmetic; nothing
     *     is written
     */
    public void refuseChange(@Nullable JobConfiguration current, JobConfiguration next) {
        CoordinationBudget before = current == null ? null : asConfigured(current);
        List<Finding> refusals = BudgetRule.refusalsOfChange(before, asConfigured(next));
        if (!refusals.isEmpty()) {
            Finding refusal = refusals.get(0);
            // At run time the fires retained move with the cron: the retention is each instance's setting.
            String input = refusal.cliff() == Cliff.LEDGER_LISTING ? "cron" : refusal.property();
            throw new InvalidOperationException(next.name(), input, refusal.message() + CONSEQUENCE);
        }
    }

    /** The budget of a configuration not running yet: its count, the fires its schedule makes due, no writes. */
    private CoordinationBudget asConfigured(JobConfiguration configuration) {
        return assess(configuration, configuration.shardingTotalCount(), -1, 0);
    }

    /** What is worked out once per configuration (the same instance, as the job's state hands it out). */
    private record Projection(JobConfiguration configuration, long firesDue, int configurationBytes, int packetBytes) {}

    /**
     * The fires the schedule makes due in {@code window} from {@code from}, counted up to {@code cap} (past it the
     * count no longer changes the judgement): a cron fires at most once a second, so a day's window costs at most
     * 86,400 steps, and only a job retained that long at that rate comes near the cap.
     */
    static long firesDue(
            FireSchedule schedule, JobConfiguration configuration, Instant from, Duration window, long cap) {
        if (configuration.isOnDemand()) {
            return 0;
        }
        Instant end = from.plus(window);
        long count = 0;
        Instant next = schedule.nextFireAfter(configuration, from);
        while (next != null && !next.isAfter(end) && count < cap) {
            count++;
            next = schedule.nextFireAfter(configuration, next);
        }
        return count;
    }

    /**
     * The client's {@code jute.maxbuffer}: the largest answer it takes. ZooKeeper's default when the client has no
     * session handle yet.
     */
    static int packetBytes(CuratorFramework client) {
        try {
            return client.getZookeeperClient()
                    .getZooKeeper()
                    .getClientConfig()
                    .getInt(ZKClientConfig.JUTE_MAXBUFFER, ZKClientConfig.CLIENT_MAX_PACKET_LENGTH_DEFAULT);
        } catch (Exception ex) {
            log.debug("Could not read the client's jute.maxbuffer, taking ZooKeeper's default: {}", ex.toString());
            return ZKClientConfig.CLIENT_MAX_PACKET_LENGTH_DEFAULT;
        }
    }

    private static int utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
