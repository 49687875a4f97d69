package io.shardingjob.core.internal.config;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.internal.config.ScheduleHistory.Entry;
import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import io.shardingjob.core.internal.requests.SizeRecord;
import io.shardingjob.core.operation.InvalidOperationException;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the job configuration every instance agrees on in {@code /{job}/config}.
 *
 * <p>The rule at start-up, logged every time it matters:
 *
 * <ul>
 *   <li>nothing stored yet: the local configuration is stored;
 *   <li>{@code overwrite=true}: the local configuration replaces the stored one, and each changed property is logged;
 *   <li>{@code overwrite=false} (the default): the stored configuration wins, and each local value it overrides is
 *       logged as a warning with the hint to set {@code overwrite=true}, so that an edit is never silently ignored.
 * </ul>
 *
 * <p>After start-up the stored configuration is the effective one: an operator's edit in ZooKeeper (a new count, say)
 * reaches every instance through its cache. A stored configuration that does not validate is refused with an error
 * log, and the last valid one stays in force.
 */
public final class JobConfigurationService {

    private static final Logger log = LoggerFactory.getLogger(JobConfigurationService.class);

    private final CuratorFramework client;

    private final ClientRequests requests;

    private final JobNodes nodes;

    private final JobCache cache;

    private final JobConfiguration local;

    private final Clock clock;

    private final Duration horizon;

    private volatile Effective effective;

    private volatile Cached history = new Cached(-1, ScheduleHistory.EMPTY);

    /**
     * @param clock the time changes are recorded in the schedule history at
     * @param horizon how far back the schedule history must reach: the catch-up horizon
     */
    public JobConfigurationService(
            CuratorFramework client,
            JobNodes nodes,
            JobCache cache,
            JobConfiguration local,
            Clock clock,
            Duration horizon) {
        this.client = client;
        this.requests = new ClientRequests(client, "Configuration");
        this.nodes = nodes;
        this.cache = cache;
        this.local = local;
        this.clock = clock;
        this.horizon = horizon;
        this.effective = new Effective(-1, local);
    }

    /**
     * What stores the local configuration and its schedule history when {@code stored} holds no configuration, the
     * job's first start; nothing otherwise. Its state now is taken to have held as far back as anything is asked (a job
     * declared in code has no ledger of an earlier job of its name; a job defined at run time has its history, marked
     * as its definition, written with its definition).
     *
     * @throws JobConfigurationException when the local configuration is larger than one node of it may be
     */
    public List<Op> firstStore(ScheduleHistoryWrites.Stored stored) {
        if (stored.config() != null) {
            return List.of();
        }
        ScheduleHistoryWrites.Read history = stored.history();
        Entry first = ScheduleHistoryWrites.entry(Instant.EPOCH, local, stored.disabledItems());
        ScheduleHistory next = history.next(
                first, ScheduleHistoryWrites.entry(clock.instant(), local, stored.disabledItems()), horizonNow());
        byte[] config = encodedLocal();
        // Each with its size record, created with the structure: merged reads of them are sized from it.
        return List.of(
                SizeRecord.writeOp(requests, nodes.size(nodes.config()), config),
                requests.createPersistent(nodes.config(), config),
                SizeRecord.writeOp(requests, nodes.size(nodes.history()), next.encode()),
                ScheduleHistoryWrites.writeOp(requests, nodes, history, next));
    }

    /**
     * Applies the start-up rule and returns the configuration in force.
     *
     * @throws JobConfigurationException when the local configuration would be stored and is larger than one node of it
     *     may be ({@link OperatorInputs#MAX_CONFIGURATION_BYTES})
     */
    public JobConfiguration publish() throws Exception {
        return publish(null);
    }

    /**
     * {@link #publish()}, deciding first on a read of what is stored sent earlier, when it was answered; then, as on
     * any change met meanwhile, on reads of its own.
     */
    public JobConfiguration publish(ScheduleHistoryWrites.@Nullable Stored readEarlier) throws Exception {
        return publish(readEarlier, false);
    }

    /**
     * {@link #publish(ScheduleHistoryWrites.Stored)} once {@link #firstStore} of that read was written with the job's
     * structure, when {@code firstStoreWritten}: the local configuration is then the one stored.
     */
    public JobConfiguration publish(ScheduleHistoryWrites.@Nullable Stored readEarlier, boolean firstStoreWritten)
            throws Exception {
        if (firstStoreWritten) {
            log.info("Job {}: stored its configuration in the registry: {}", local.name(), local);
            return local;
        }
        for (int attempt = 0; attempt < 5; attempt++) {
            ScheduleHistoryWrites.Stored stored =
                    attempt == 0 && readEarlier != null ? readEarlier : ScheduleHistoryWrites.readStored(client, nodes);
            ScheduleHistoryWrites.Read history = stored.history();
            List<Integer> disabledItems = stored.disabledItems();
            byte[] config = stored.config();
            if (config == null) {
                // In the client's merged multis: thousands of jobs starting for the first time store theirs in a few
                // requests.
                List<Op> ops = firstStore(stored);
                MultiAnswer answer = RetryLoop.callWithRetry(
                        client.getZookeeperClient(), () -> ClientRequests.await(requests.multiAsync("Store", ops)));
                if (answer.ok()) {
                    log.info("Job {}: stored its configuration in the registry: {}", local.name(), local);
                    return local;
                }
                KeeperException.Code code = answer.refusal();
                if (code == KeeperException.Code.NODEEXISTS || code == KeeperException.Code.BADVERSION) {
                    // Stored meanwhile by another instance, or another change recorded: read again.
                    continue;
                }
                throw KeeperException.create(code, answer.refusedPath(ops, nodes.config()));
            }
            Optional<JobConfiguration> decoded = decode(config);
            List<String> differences =
                    decoded.map(local::differencesTo).orElse(List.of("(stored configuration is invalid)"));
            if (differences.isEmpty()) {
                recordHistoryIfMissing(decoded.get(), stored);
                return decoded.get();
            }
            if (local.overwrite() || decoded.isEmpty()) {
                try {
                    Instant now = clock.instant();
                    Entry next = ScheduleHistoryWrites.entry(now, local, disabledItems);
                    ScheduleHistory recorded = history.next(
                            decoded.map(before -> ScheduleHistoryWrites.entry(now, before, disabledItems))
                                    .orElse(next),
                            next,
                            horizonNow());
                    List<CuratorOp> ops = new ArrayList<>();
                    ops.add(SizeRecord.write(client, nodes.size(nodes.config()), encodedLocal()));
                    ops.add(client.transactionOp()
                            .setData()
                            .withVersion(stored.configVersion())
                            .forPath(nodes.config(), encodedLocal()));
                    if (!recorded.equals(history.history())) {
                        ops.add(SizeRecord.write(client, nodes.size(nodes.history()), recorded.encode()));
                        ops.add(ScheduleHistoryWrites.write(client, nodes, history, recorded));
                    }
                    client.transaction().forOperations(ops);
                } catch (KeeperException raced) {
                    if (ScheduleHistoryWrites.raced(raced)) {
                        continue;
                    }
                    throw raced;
                }
                log.info(
                        "Job {}: the local configuration replaced the stored one (overwrite=true); changed {}",
                        local.name(),
                        differences);
                return local;
            }
            recordHistoryIfMissing(decoded.get(), stored);
            log.warn(
                    "Job {}: the configuration stored in ZooKeeper wins over the local one (overwrite=false);"
                            + " local -> stored values: {}. Set overwrite=true to make the local configuration win.",
                    local.name(),
                    differences);
            return decoded.get().toBuilder().overwrite(false).build();
        }
        throw new IllegalStateException("Job '" + local.name() + "': the stored configuration kept changing");
    }

    /**
     * Gives a job stored before schedule histories were one, from its state as read: what holds now is taken to have
     * held before. Another instance creating it first is as good.
     */
    private void recordHistoryIfMissing(JobConfiguration stored, ScheduleHistoryWrites.Stored read) throws Exception {
        if (!read.history().history().isEmpty()) {
            return;
        }
        Entry now = ScheduleHistoryWrites.entry(Instant.EPOCH, stored, read.disabledItems());
        byte[] history = read.history().next(now, now, horizonNow()).encode();
        try {
            client.transaction()
                    .forOperations(
                            SizeRecord.write(client, nodes.size(nodes.history()), history),
                            client.transactionOp().create().forPath(nodes.history(), history));
        } catch (KeeperException.NodeExistsException raced) {
            // Another instance recorded it first.
        }
    }

    private Instant horizonNow() {
        return clock.instant().minus(horizon);
    }

    /**
     * The job's schedule history, from the cache: which crons, enabled states, counts and disabled items held since
     * when. Empty before it was ever written (read as: what holds now held before).
     */
    public ScheduleHistory history() {
        Optional<ChildData> node = cache.node(nodes.history());
        if (node.isEmpty()) {
            return ScheduleHistory.EMPTY;
        }
        Cached current = history;
        long mzxid = node.get().getStat().getMzxid();
        if (mzxid != current.mzxid) {
            current = new Cached(mzxid, ScheduleHistory.decode(node.get().getData()));
            history = current;
        }
        return current.history;
    }

    /** The configuration in force: the stored one, from the cache, or the last valid one. */
    public JobConfiguration effective() {
        Optional<ChildData> node = cache.node(nodes.config());
        Effective current = effective;
        if (node.isPresent() && node.get().getStat().getMzxid() != current.mzxid) {
            long mzxid = node.get().getStat().getMzxid();
            JobConfiguration next = decode(node.get().getData()).orElse(current.configuration);
            current = new Effective(mzxid, next);
            effective = current;
        }
        return current.configuration;
    }

    /**
     * Stores a new count; every instance's cache sees it and the leader reshards.
     *
     * @throws JobConfigurationException when the count is invalid for the stored item parameters
     */
    public JobConfiguration updateShardingTotalCount(int shardingTotalCount) throws Exception {
        JobConfiguration stored = StoredConfiguration.update(
                        client,
                        local.name(),
                        current -> current.toBuilder()
                                .shardingTotalCount(shardingTotalCount)
                                .build(),
                        FireSchedule.NONE,
                        clock,
                        horizon)
                .configuration();
        log.info("Job {}: shardingTotalCount set to {}", local.name(), shardingTotalCount);
        return stored;
    }

    /**
     * Stores the configuration with the job's {@code disabled} flag set, at the version read, so that a concurrent
     * change of another property is not lost. Every instance sees it through its cache.
     *
     * @return whether the stored flag changed; false when it already had that value
     * @throws RegistryUnavailableException when ZooKeeper could not be read or written
     * @throws IllegalStateException when the stored configuration kept changing
     */
    public boolean updateDisabled(boolean disabled) {
        try {
            return StoredConfiguration.update(
                            client,
                            local.name(),
                            current -> current.toBuilder().disabled(disabled).build(),
                            FireSchedule.NONE,
                            clock,
                            horizon)
                    .changed();
        } catch (IllegalStateException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new RegistryUnavailableException(
                    "Job '" + local.name() + "': could not store disabled=" + disabled, ex);
        }
    }

    /** The local configuration's stored form, within the size of one node; a start-up failure naming it otherwise. */
    private byte[] encodedLocal() {
        try {
            return OperatorInputs.encoded(local);
        } catch (InvalidOperationException tooLarge) {
            throw new JobConfigurationException(local.name(), tooLarge.input(), tooLarge.problem());
        }
    }

    /**
     * Disables or enables an item: creates or deletes {@code /{job}/disabled/items/{item}} and records the job's
     * disabled items from now on in its schedule history, in one multi-operation, so that the item's fires while it
     * was disabled are never made up.
     *
     * @return whether anything changed; false when the item already was so
     * @throws RegistryUnavailableException when ZooKeeper could not be read or written
     */
    public boolean updateDisabledItem(int item, boolean disabled) {
        try {
            for (int attempt = 0; attempt < 5; attempt++) {
                List<Integer> before = ScheduleHistoryWrites.disabledItems(client, nodes);
                if (before.contains(item) == disabled) {
                    return false;
                }
                List<Integer> after = new ArrayList<>(before);
                if (disabled) {
                    after.add(item);
                } else {
                    after.remove(Integer.valueOf(item));
                }
                JobConfiguration stored = StoredConfiguration.read(client, local.name());
                ScheduleHistoryWrites.Read history = ScheduleHistoryWrites.read(client, nodes);
                Instant now = clock.instant();
                ScheduleHistory recorded = history.next(
                        ScheduleHistoryWrites.entry(now, stored, before),
                        ScheduleHistoryWrites.entry(now, stored, after),
                        horizonNow());
                List<CuratorOp> ops = new ArrayList<>();
                ops.add(
                        disabled
                                ? client.transactionOp().create().forPath(nodes.disabledItem(item))
                                : client.transactionOp().delete().forPath(nodes.disabledItem(item)));
                if (!recorded.equals(history.history())) {
                    ops.add(SizeRecord.write(client, nodes.size(nodes.history()), recorded.encode()));
                    ops.add(ScheduleHistoryWrites.write(client, nodes, history, recorded));
                }
                try {
                    client.transaction().forOperations(ops);
                    return true;
                } catch (KeeperException raced) {
                    if (!ScheduleHistoryWrites.raced(raced) && !(raced instanceof KeeperException.NoNodeException)) {
                        throw raced;
                    }
                    // Changed meanwhile (the item, or the history): looked at again.
                }
            }
            throw new IllegalStateException("Job '" + local.name() + "': the disabled items kept changing");
        } catch (IllegalStateException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new RegistryUnavailableException(
                    "Job '" + local.name() + "': could not store item " + item + " disabled=" + disabled, ex);
        }
    }

    private Optional<JobConfiguration> decode(byte[] stored) {
        try {
            return Optional.of(JobConfigurationCodec.decode(local.name(), stored));
        } catch (JobConfigurationException ex) {
            log.error(
                    "Job {}: ignoring the invalid configuration stored in ZooKeeper: {}",
                    local.name(),
                    ex.getMessage());
            return Optional.empty();
        }
    }

    private record Effective(long mzxid, JobConfiguration configuration) {}

    private record Cached(long mzxid, ScheduleHistory history) {}
}
