package io.shardingjob.core.internal.sharding;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import io.shardingjob.core.internal.requests.SizeRecord;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.sharding.strategy.ShardingStrategy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt at a reshard, from the read to the write. First the flag and everything the assignment is computed from,
 * read from ZooKeeper (not the cache) in one request: the one place that knows which nodes a reshard depends on. Then,
 * when the flag is up, the new assignment, the flag's clearing at the version read and the removal of disabled items
 * beyond the count, in one multi that checks the versions read, so that no reader ever sees a half-written assignment
 * and a trigger or another leader (a deposed one racing a new one) that changed the flag or the assignment meanwhile
 * makes the whole write fail and the reshard start over. The one writer of the assignment node, so the one that knows
 * the epoch this leader last wrote.
 */
final class Reshard {

    /** Under {@link ShardingService}'s name, as before the reshard had a class of its own: log settings still apply. */
    private static final Logger log = LoggerFactory.getLogger(ShardingService.class);

    private final ClientRequests requests;
    private final JobNodes nodes;
    private final String jobName;
    private final Supplier<JobConfiguration> configuration;
    private final Function<String, ShardingStrategy> strategies;
    private volatile long lastWrittenEpoch;

    /** What a reshard is computed from; the flag null when it is down. */
    private record State(
            @Nullable Stat flag,
            JobConfiguration config,
            List<String> instances,
            Assignment previous,
            int assignmentVersion,
            List<String> disabledItems) {}

    Reshard(
            ClientRequests requests,
            JobNodes nodes,
            Supplier<JobConfiguration> configuration,
            Function<String, ShardingStrategy> strategies) {
        this.requests = requests;
        this.nodes = nodes;
        this.jobName = JobNodes.name(nodes.root());
        this.configuration = configuration;
        this.strategies = strategies;
    }

    /** The epoch this instance's last commit left in force (a new one, or the one kept); 0 before its first. */
    long lastWrittenEpoch() {
        return lastWrittenEpoch;
    }

    /** The assignment written, or empty when the flag was down or nothing moved. */
    CompletableFuture<Optional<Assignment>> attempt() {
        return read().thenCompose(state -> state.flag() == null
                ? CompletableFuture.completedFuture(Optional.empty())
                : commit(state, state.flag()));
    }

    /**
     * One multi of reads, merged with the reads the client's other jobs send meanwhile: thousands of jobs electing
     * leaders at start-up each read it once.
     */
    private CompletableFuture<State> read() {
        List<Op> reads = List.of(
                Op.getData(requests.full(nodes.reshardNecessary())),
                Op.getData(requests.full(nodes.config())),
                Op.getChildren(requests.full(nodes.instances())),
                Op.getChildren(requests.full(nodes.disabledInstances())),
                Op.getChildren(requests.full(nodes.leavingInstances())),
                Op.getData(requests.full(nodes.assignment())),
                Op.getChildren(requests.full(nodes.disabledItems())));
        // Sized from their records, read first: a configuration may take half of what one answer carries.
        Map<String, String> recordOf = Map.of(
                requests.full(nodes.config()), requests.full(nodes.size(nodes.config())),
                requests.full(nodes.assignment()), requests.full(nodes.size(nodes.assignment())));
        return requests.readRecordedAsync(
                        "ReadState",
                        reads,
                        ClientRequests.SMALL_LISTING_BYTES,
                        ClientRequests.READ_DATA_BYTES,
                        recordOf)
                .thenApply(answer -> state(answer.results()));
    }

    private State state(List<OpResult> results) {
        @Nullable Stat flag = null;
        if (results.get(0) instanceof OpResult.GetDataResult raised) {
            flag = raised.getStat();
        } else {
            failUnlessMissing(results.get(0), nodes.reshardNecessary());
        }
        List<String> sharding = new ArrayList<>(listing(results, 2, nodes.instances()));
        sharding.removeAll(listing(results, 3, nodes.disabledInstances()));
        sharding.removeAll(listing(results, 4, nodes.leavingInstances()));
        sharding.sort(null);
        Assignment previous = Assignment.NONE;
        int assignmentVersion = 0;
        if (results.get(5) instanceof OpResult.GetDataResult assignment) {
            previous = Assignment.decode(assignment.getData());
            assignmentVersion = assignment.getStat().getVersion();
        } else {
            failUnlessMissing(results.get(5), nodes.assignment());
        }
        return new State(
                flag,
                configuration(results.get(1)),
                sharding,
                previous,
                assignmentVersion,
                listing(results, 6, nodes.disabledItems()));
    }

    private CompletableFuture<Optional<Assignment>> commit(State state, Stat flag) {
        JobConfiguration config = state.config();
        Assignment previous = state.previous();
        Assignment computed = NextAssignment.compute(jobName, config, state.instances(), previous, strategies);
        List<Op> ops = new ArrayList<>();
        boolean unchanged = previous.shardingTotalCount() == computed.shardingTotalCount()
                && previous.itemsByInstance().equals(computed.itemsByInstance());
        // Nothing moves (a member re-registered, say): keep the epoch so that no running item is fenced off.
        Assignment next = unchanged ? previous : computed;
        String assignment = requests.full(nodes.assignment());
        if (unchanged) {
            ops.add(Op.check(assignment, state.assignmentVersion()));
        } else if (previous == Assignment.NONE) {
            ops.add(SizeRecord.writeOp(requests, nodes.size(nodes.assignment()), next.encode()));
            ops.add(requests.createPersistent(nodes.assignment(), next.encode()));
        } else {
            // With its size record, created with the structure: merged reads of it are sized from it.
            ops.add(SizeRecord.writeOp(requests, nodes.size(nodes.assignment()), next.encode()));
            ops.add(Op.setData(assignment, next.encode(), state.assignmentVersion()));
        }
        ops.add(Op.delete(requests.full(nodes.reshardNecessary()), flag.getVersion()));
        for (String item : state.disabledItems()) {
            if (Integer.parseInt(item) >= next.shardingTotalCount()) {
                ops.add(Op.delete(requests.full(nodes.disabledItems() + "/" + item), -1));
            }
        }
        // In the multis every job of the client shares: thousands of leaders' first assignments go in a few requests.
        return requests.multiAsync("Commit", ops).thenApply(answer -> {
            if (!answer.ok()) {
                throw ClientRequests.refused(answer.refusal(), answer.refusedPath(ops, assignment));
            }
            lastWrittenEpoch = next.epoch();
            if (unchanged) {
                log.debug("Job {}: reshard flag cleared, epoch {} still in force", jobName, next.epoch());
                return Optional.<Assignment>empty();
            }
            log.info(
                    "Job {}: epoch {} assigns {} items with strategy '{}': {}",
                    jobName,
                    next.epoch(),
                    next.shardingTotalCount(),
                    config.dynamicSharding() ? "dynamic" : config.strategy(),
                    next.itemsByInstance());
            return Optional.of(next);
        });
    }

    /** The shared configuration as just read; the cached one if it is invalid or could not be read. */
    private JobConfiguration configuration(OpResult read) {
        if (read instanceof OpResult.GetDataResult data) {
            try {
                return JobConfigurationCodec.decode(jobName, data.getData());
            } catch (RuntimeException invalid) {
                return configuration.get();
            }
        }
        return configuration.get();
    }

    private static List<String> listing(List<OpResult> results, int index, String path) {
        if (results.get(index) instanceof OpResult.GetChildrenResult listing) {
            return listing.getChildren();
        }
        throw ClientRequests.refused(MultiAnswer.codeOf(results.get(index)), path);
    }

    private static void failUnlessMissing(OpResult result, String path) {
        if (!MultiAnswer.isMissing(result)) {
            throw ClientRequests.refused(MultiAnswer.codeOf(result), path);
        }
    }
}
