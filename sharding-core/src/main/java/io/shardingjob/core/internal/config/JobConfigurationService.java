package io.shardingjob.core.internal.config;

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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the job configuration every instance agrees on in {@code /{job}/config}. At start-up, with nothing stored the
 * local configuration is stored; with {@code overwrite=true} it replaces the stored one, each changed property logged;
 * otherwise the stored one wins, each local value it overrides logged as a warning with the hint to set
 * {@code overwrite=true}, so that an edit is never silently ignored. After start-up the stored configuration is the
 * effective one, an operator's edit reaching every instance through its cache; one that does not validate is refused
 * with an error log, and the last valid one stays in force.
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
    private volatile Decoded<JobConfiguration> effective;
    private volatile Decoded<ScheduleHistory> history = new Decoded<>(-1, ScheduleHistory.EMPTY);
    private final ScheduleHistoryCatchUp catchUp;

    /** @param horizon how far back the schedule history must reach: the catch-up horizon */
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
        this.effective = new Decoded<>(-1, local);
        this.catchUp = new ScheduleHistoryCatchUp(requests, nodes, cache, local.name(), clock, horizon);
    }

    /**
     * What stores the local configuration and its schedule history on the job's first start ({@code stored} holds no
     * configuration); nothing otherwise. Its state now is taken to have held as far back as anything is asked: a job
     * declared in code has no ledger of an earlier job of its name, and a job defined at run time has its history
     * written with its definition.
     *
     * @throws JobConfigurationException when the local configuration is larger than one node of it may be
     */
    public List<Op> firstStore(ScheduleHistoryWrites.Stored stored) {
        if (stored.config() != null) {
            return List.of();
        }
        ScheduleHistoryWrites.Read history = stored.history();
        Entry first = Entry.of(Instant.EPOCH, false, local, stored.disabledItems());
        ScheduleHistory next =
                history.next(first, Entry.of(clock.instant(), false, local, stored.disabledItems()), horizonNow());
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
     * @param readEarlier a read of what is stored sent earlier, decided on first; a change met meanwhile is read again
     * @param firstStoreWritten whether {@link #firstStore} of that read was written with the job's structure
     * @throws JobConfigurationException when the local configuration would be stored and is larger than one node may be
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
            byte[] config = stored.config();
            if (config == null) {
                if (!storedFirst(stored)) {
                    continue;
                }
                log.info("Job {}: stored its configuration in the registry: {}", local.name(), local);
                return local;
            }
            Optional<JobConfiguration> decoded = decode(config);
            List<String> differences =
                    decoded.map(local::differencesTo).orElse(List.of("(stored configuration is invalid)"));
            if (!differences.isEmpty() && (local.overwrite() || decoded.isEmpty())) {
                if (!overwrote(stored, decoded)) {
                    continue;
                }
                log.info(
                        "Job {}: the local configuration replaced the stored one (overwrite=true); changed {}",
                        local.name(),
                        differences);
                return local;
            }
            // A job stored before there were histories, or changed by hand while no instance ran, gets its entry;
            // waited for, so that a start goes on once the history says what is stored.
            ClientRequests.await(catchUp.recordAsync(ScheduleHistoryCatchUp.Seen.of(decoded.get(), stored)));
            if (!differences.isEmpty()) {
                log.warn(
                        "Job {}: the configuration stored in ZooKeeper wins over the local one (overwrite=false);"
                                + " local -> stored values: {}. Set overwrite=true to make the local configuration"
                                + " win.",
                        local.name(),
                        differences);
            }
            // Its overwrite is false: it is never stored, so what was read has the default.
            return decoded.get();
        }
        throw new IllegalStateException("Job '" + local.name() + "': the stored configuration kept changing");
    }

    /**
     * Stores the local configuration and its history where none is stored, in the client's merged multis (thousands of
     * jobs starting for the first time store theirs in a few requests); false when another instance stored one
     * meanwhile, or another change was recorded: read again.
     */
    private boolean storedFirst(ScheduleHistoryWrites.Stored stored) throws Exception {
        List<Op> ops = firstStore(stored);
        MultiAnswer answer = RetryLoop.callWithRetry(
                client.getZookeeperClient(), () -> ClientRequests.await(requests.multiAsync("Store", ops)));
        if (answer.ok()) {
            return true;
        }
        KeeperException.Code code = answer.refusal();
        if (code == KeeperException.Code.NODEEXISTS || code == KeeperException.Code.BADVERSION) {
            return false;
        }
        throw KeeperException.create(code, answer.refusedPath(ops, nodes.config()));
    }

    /**
     * Replaces the stored configuration (empty when invalid) with the local one, at the version read, with the
     * history's entry of the change; false when another change landed since the read: read again.
     */
    private boolean overwrote(ScheduleHistoryWrites.Stored stored, Optional<JobConfiguration> decoded)
            throws Exception {
        Instant now = clock.instant();
        Entry next = Entry.of(now, false, local, stored.disabledItems());
        Entry before = decoded.map(job -> Entry.of(now, false, job, stored.disabledItems()))
                .orElse(next);
        ScheduleHistory recorded = stored.history().next(before, next, horizonNow());
        return StoredConfiguration.replaced(
                client, nodes, stored.configVersion(), encodedLocal(), stored.history(), recorded, true);
    }

    /** Records in the history a change of schedule made without it, whenever the cache shows one. */
    public ScheduleHistoryCatchUp historyCatchUp() {
        return catchUp;
    }

    private Instant horizonNow() {
        return clock.instant().minus(horizon);
    }

    /** The job's schedule history, from the cache; empty before it was ever written (what holds now held before). */
    public ScheduleHistory history() {
        Optional<ChildData> node = cache.node(nodes.history());
        if (node.isEmpty()) {
            return ScheduleHistory.EMPTY;
        }
        Decoded<ScheduleHistory> current = history;
        long mzxid = node.get().getStat().getMzxid();
        if (mzxid != current.mzxid) {
            current = new Decoded<>(mzxid, ScheduleHistory.decode(node.get().getData()));
            history = current;
        }
        return current.value;
    }

    /** The configuration in force: the stored one, from the cache, or the last valid one. */
    public JobConfiguration effective() {
        Optional<ChildData> node = cache.node(nodes.config());
        Decoded<JobConfiguration> current = effective;
        if (node.isPresent() && node.get().getStat().getMzxid() != current.mzxid) {
            long mzxid = node.get().getStat().getMzxid();
            current = new Decoded<>(mzxid, decode(node.get().getData()).orElse(current.value));
            effective = current;
        }
        return current.value;
    }

    /** The local configuration's stored form, within the size of one node; a start-up failure naming it otherwise. */
    private byte[] encodedLocal() {
        try {
            return OperatorInputs.encoded(local);
        } catch (InvalidOperationException tooLarge) {
            throw new JobConfigurationException(local.name(), tooLarge.input(), tooLarge.problem());
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

    private record Decoded<T>(long mzxid, T value) {}
}
