package io.shardingjob.core.internal.config;

import io.shardingjob.core.internal.config.ScheduleHistory.Entry;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import io.shardingjob.core.internal.requests.SizeRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The reads and the write of a job's {@link ScheduleHistory} that go with a change of what it records: the change and
 * the history's new entry are written in one multi-operation, the history at the version read, so that of two changes
 * made at once one fails and is made again on top of the other, and the history never misses a change nor records one
 * that did not happen.
 */
public final class ScheduleHistoryWrites {

    private ScheduleHistoryWrites() {}

    /** The history as read, with the version to write it at: -1 when there is no node yet (it is created). */
    public record Read(ScheduleHistory history, int version) {

        /**
         * The history with what holds from {@code now} on. A job that had no history yet (stored before histories were)
         * gets one that starts with {@code before}, the state before the change, as far back as anything is asked.
         */
        public ScheduleHistory next(Entry before, Entry now, Instant horizon) {
            ScheduleHistory base = history;
            if (base.isEmpty()) {
                base = new ScheduleHistory(List.of(before.at(Instant.EPOCH, false)));
            }
            return base.with(now, horizon);
        }
    }

    public static Read read(CuratorFramework client, JobNodes nodes) throws Exception {
        Stat stat = new Stat();
        try {
            byte[] data = client.getData().storingStatIn(stat).forPath(nodes.history());
            return new Read(ScheduleHistory.decode(data), stat.getVersion());
        } catch (KeeperException.NoNodeException none) {
            return new Read(ScheduleHistory.EMPTY, -1);
        }
    }

    /**
     * The job's stored configuration (null, version -1 and changed at {@link Instant#EPOCH} when there is none),
     * history and disabled items, as one read at start-up finds them; {@code configChanged} is on the ensemble's clock.
     */
    public record Stored(
            byte @Nullable [] config,
            int configVersion,
            Instant configChanged,
            Read history,
            List<Integer> disabledItems) {}

    /**
     * Reads the configuration, the history and the disabled items in one multi of reads, merged with the reads of the
     * client's other jobs (thousands of jobs starting together read theirs in a few requests), with Curator's retries.
     */
    public static Stored readStored(CuratorFramework client, JobNodes nodes) throws Exception {
        return RetryLoop.callWithRetry(
                client.getZookeeperClient(), () -> ClientRequests.await(readStoredAsync(client, nodes)));
    }

    /**
     * {@link #readStored} sent now and answered later, without retries: a job's start sends it with the read of its
     * structure, so that the two share a round trip (a node the start then creates is created empty: what this read
     * found holds after it too).
     */
    public static CompletableFuture<Stored> readStoredAsync(CuratorFramework client, JobNodes nodes) {
        ClientRequests requests = new ClientRequests(client, "Configuration");
        List<Op> reads = List.of(
                Op.getData(requests.full(nodes.config())),
                Op.getData(requests.full(nodes.history())),
                Op.getChildren(requests.full(nodes.disabledItems())));
        // Sized from their records, read first: a configuration may take half of what one answer carries.
        Map<String, String> recordOf = Map.of(
                requests.full(nodes.config()), requests.full(nodes.size(nodes.config())),
                requests.full(nodes.history()), requests.full(nodes.size(nodes.history())));
        return requests.readRecordedAsync(
                        "Read", reads, ClientRequests.SMALL_LISTING_BYTES, ClientRequests.READ_DATA_BYTES, recordOf)
                .thenApply(answer -> stored(reads, answer.results()));
    }

    private static Stored stored(List<Op> reads, List<OpResult> results) {
        for (int i = 0; i < reads.size(); i++) {
            if (!MultiAnswer.isMissing(results.get(i))
                    && MultiAnswer.codeOf(results.get(i)) != KeeperException.Code.OK) {
                throw ClientRequests.refused(
                        MultiAnswer.codeOf(results.get(i)), reads.get(i).getPath());
            }
        }
        byte[] config = null;
        int configVersion = -1;
        Instant configChanged = Instant.EPOCH;
        if (results.get(0) instanceof OpResult.GetDataResult stored) {
            config = stored.getData();
            configVersion = stored.getStat().getVersion();
            configChanged = Instant.ofEpochMilli(stored.getStat().getMtime());
        }
        Read history = results.get(1) instanceof OpResult.GetDataResult stored
                ? new Read(
                        ScheduleHistory.decode(stored.getData()),
                        stored.getStat().getVersion())
                : new Read(ScheduleHistory.EMPTY, -1);
        List<Integer> disabledItems =
                results.get(2) instanceof OpResult.GetChildrenResult listing ? items(listing.getChildren()) : List.of();
        return new Stored(config, configVersion, configChanged, history, disabledItems);
    }

    public static List<Integer> disabledItems(CuratorFramework client, JobNodes nodes) throws Exception {
        try {
            return items(client.getChildren().forPath(nodes.disabledItems()));
        } catch (KeeperException.NoNodeException none) {
            // No item was ever disabled.
            return List.of();
        }
    }

    /** The items the children of the disabled items' node name. */
    static List<Integer> items(List<String> children) {
        List<Integer> items = new ArrayList<>();
        for (String child : children) {
            try {
                items.add(Integer.valueOf(child));
            } catch (NumberFormatException foreign) {
                // Not an item: ignored, as the instances ignore it.
            }
        }
        return List.copyOf(items);
    }

    /**
     * Writes a change with the history that records it, in one transaction, the history at the version read (with its
     * size record, when the job has size records): false when another change stored the history meanwhile (a {@code
     * BadVersion}, or a {@code NodeExists} for a history created meanwhile) or won a race on what the change writes: it
     * is made again on top of that change.
     */
    public static boolean commit(
            CuratorFramework client,
            JobNodes nodes,
            List<CuratorOp> change,
            Read read,
            ScheduleHistory next,
            boolean sized)
            throws Exception {
        List<CuratorOp> ops = new ArrayList<>(change);
        if (!next.equals(read.history())) {
            if (sized) {
                ops.add(SizeRecord.write(client, nodes.size(nodes.history()), next.encode()));
            }
            ops.add(
                    read.version() < 0
                            ? client.transactionOp().create().forPath(nodes.history(), next.encode())
                            : client.transactionOp()
                                    .setData()
                                    .withVersion(read.version())
                                    .forPath(nodes.history(), next.encode()));
        }
        try {
            client.transaction().forOperations(ops);
            return true;
        } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException raced) {
            return false;
        }
    }

    /** The history's write of {@link #commit}, as a raw operation for the client's merged multis. */
    public static Op writeOp(ClientRequests requests, JobNodes nodes, Read read, ScheduleHistory next) {
        return read.version() < 0
                ? requests.createPersistent(nodes.history(), next.encode())
                : Op.setData(requests.full(nodes.history()), next.encode(), read.version());
    }
}
