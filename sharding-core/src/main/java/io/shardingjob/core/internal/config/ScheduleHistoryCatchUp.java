package io.shardingjob.core.internal.config;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.internal.config.ScheduleHistory.Entry;
import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.Answers;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.SizeRecord;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the entry a job's {@link ScheduleHistory} lacks when its schedule was changed without one: a configuration or
 * a disabled item written outside the library (by hand in ZooKeeper, by an old version), or a job stored before there
 * were histories. The history stays the one record of what held when; whatever reads it ({@code DueRule}) never has
 * to guess from the configuration.
 *
 * <p>Every instance that sees the difference tries, and ZooKeeper decides which one records it: the entry is written
 * at the history's version as seen, in one multi with a {@code check} of the configuration's version, so that it is
 * written once, and only for the configuration that is still stored (a change the library makes writes its entry in
 * the same multi as itself; an instance whose cache saw one half of it is refused). The disabled items cannot be
 * checked so (a {@code check} compares a node's data version, not its children's), but the cache reads them in the
 * order they changed, and a history read after a change is read after that change's items.
 *
 * <p>When the change took effect, the entry's {@code from}:
 *
 * <ul>
 *   <li>a change of the configuration (cron, time zone, enabled, count): the configuration node's {@code mtime}, the
 *       ensemble's time of the write. No trigger can fire on the new cron before that write exists, so every fire of it
 *       comes after it; the writer's own clock, later by the time the change took to reach it, would leave the fires in
 *       between to the old cron, which declares them not due. A stale trigger's fire of the old cron after the write is
 *       not due, as after any change;
 *   <li>a change of the disabled items alone: the writer's clock, as a deleted item node leaves no time behind;
 *   <li>no history at all: the state now is taken to have held all along, as far back as anything is asked.
 * </ul>
 *
 * <p>Until the entry lands, an instance whose cache shows the change but not the entry judges by a history that does
 * not record what it sees: {@code DueRule} then says of a fire it would call not due that it is not known yet, and the
 * run is decided again once the entry is in the history, so that a fire of the new cron is not recorded as not due.
 */
public final class ScheduleHistoryCatchUp {

    private static final Logger log = LoggerFactory.getLogger(ScheduleHistoryCatchUp.class);
    private final ClientRequests requests;
    private final JobNodes nodes;
    private final JobCache cache;
    private final String jobName;
    private final Clock clock;
    private final Duration horizon;

    /** Whether a catch-up write failed: owed until one succeeds or finds nothing missing (see {@link #retryOwed}). */
    private volatile boolean owed;

    /** @param horizon how far back the history must reach: the catch-up horizon */
    ScheduleHistoryCatchUp(
            ClientRequests requests, JobNodes nodes, JobCache cache, String jobName, Clock clock, Duration horizon) {
        this.requests = requests;
        this.nodes = nodes;
        this.cache = cache;
        this.jobName = jobName;
        this.clock = clock;
        this.horizon = horizon;
    }

    /**
     * What the registry holds of a job's schedule, as one instance sees it; {@code configChanged} is the configuration
     * node's {@code mtime}, on the ensemble's clock.
     */
    record Seen(
            JobConfiguration config,
            int configVersion,
            Instant configChanged,
            ScheduleHistoryWrites.Read history,
            Collection<Integer> disabledItems) {

        /** What a start read, its configuration as decoded. */
        static Seen of(JobConfiguration config, ScheduleHistoryWrites.Stored read) {
            return new Seen(config, read.configVersion(), read.configChanged(), read.history(), read.disabledItems());
        }
    }

    /**
     * The history with the entry it lacks, or null when its latest entry says what the configuration and the disabled
     * items say: see the class comment for the entry's time.
     */
    static @Nullable ScheduleHistory caughtUp(Seen seen, Instant now, Instant horizon) {
        ScheduleHistory history = seen.history().history();
        if (history.records(Entry.of(now, false, seen.config(), seen.disabledItems()))) {
            return null;
        }
        Entry latest = history.latest();
        if (latest == null) {
            Entry always = Entry.of(Instant.EPOCH, false, seen.config(), seen.disabledItems());
            return seen.history().next(always, always, horizon);
        }
        Entry configured = Entry.of(latest.from(), false, seen.config(), latest.disabledItems());
        Instant from = latest.sameState(configured) ? now : seen.configChanged();
        return history.with(Entry.of(from, false, seen.config(), seen.disabledItems()), horizon);
    }

    /**
     * Records the entry the history lacks, if it lacks one: whether this instance wrote it, false when nothing was
     * missing or another instance or change came first; exceptionally when the server did not answer or refused the
     * write for another reason.
     */
    CompletableFuture<Boolean> recordAsync(Seen seen) {
        Instant now = clock.instant();
        ScheduleHistory next = caughtUp(seen, now, now.minus(horizon));
        if (next == null) {
            return CompletableFuture.completedFuture(false);
        }
        List<Op> ops = List.of(
                Op.check(requests.full(nodes.config()), seen.configVersion()),
                SizeRecord.writeOp(requests, nodes.size(nodes.history()), next.encode()),
                ScheduleHistoryWrites.writeOp(requests, nodes, seen.history(), next));
        return requests.multiAsync("RecordHistory", ops).thenApply(answer -> {
            if (answer.ok()) {
                return true;
            }
            KeeperException.Code code = answer.refusal();
            if (code == KeeperException.Code.BADVERSION
                    || code == KeeperException.Code.NODEEXISTS
                    || code == KeeperException.Code.NONODE) {
                // Another instance recorded it, or the configuration or history changed since it was seen: that
                // change is seen next, and looked at again.
                return false;
            }
            throw ClientRequests.refused(code, answer.refusedPath(ops, requests.full(nodes.history())));
        });
    }

    /**
     * A node of the job's registry changed (null: the cache's first load ended): when it was the configuration, the
     * history or a disabled item, records in the history a change of schedule made without it, as the cache shows
     * them. Runs on the job's serial executor; the write is not waited for.
     */
    public void registryChanged(@Nullable String path) {
        if (path != null
                && !path.equals(nodes.config())
                && !path.equals(nodes.history())
                && !path.startsWith(nodes.disabledItems() + "/")) {
            return;
        }
        seenInCache()
                .ifPresent(
                        seen -> recordAsync(seen).whenComplete((written, failure) -> logged(seen, written, failure)));
    }

    /**
     * Tries again a catch-up write that failed, from what the cache shows now: the job's periodic check asks, since the
     * next change of the schedule may be long in coming, and until the entry lands a fire of the new schedule waits.
     */
    public void retryOwed() {
        if (owed) {
            registryChanged(null);
        }
    }

    /** What the cache shows of the job's schedule; empty while no valid configuration is stored. */
    private Optional<Seen> seenInCache() {
        Optional<ChildData> config = cache.node(nodes.config());
        Optional<JobConfiguration> decoded;
        try {
            decoded = config.map(node -> JobConfigurationCodec.decode(jobName, node.getData()));
        } catch (JobConfigurationException invalid) {
            // Refused where it is read for use (logged there): the last valid one stays in force, as the history says.
            return Optional.empty();
        }
        if (decoded.isEmpty()) {
            return Optional.empty();
        }
        Stat configStat = config.get().getStat();
        Optional<ChildData> historyNode = cache.node(nodes.history());
        ScheduleHistoryWrites.Read history = historyNode
                .map(node -> new ScheduleHistoryWrites.Read(
                        ScheduleHistory.decode(node.getData()), node.getStat().getVersion()))
                .orElse(new ScheduleHistoryWrites.Read(ScheduleHistory.EMPTY, -1));
        return Optional.of(new Seen(
                decoded.get(),
                configStat.getVersion(),
                Instant.ofEpochMilli(configStat.getMtime()),
                history,
                ScheduleHistoryWrites.items(cache.children(nodes.disabledItems()))));
    }

    private void logged(Seen seen, @Nullable Boolean written, @Nullable Throwable failure) {
        owed = failure != null;
        if (failure != null) {
            log.warn(
                    "Job {}: could not record the schedule's change in its history; the job's next periodic check"
                            + " tries again: {}",
                    jobName,
                    Answers.cause(failure).toString());
        } else if (Boolean.TRUE.equals(written)) {
            log.info("Job {}: recorded in the schedule history a change made without it: {}", jobName, seen.config());
        }
    }
}
