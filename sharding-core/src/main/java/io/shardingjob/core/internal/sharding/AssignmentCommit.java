package io.shardingjob.core.internal.sharding;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.SizeRecord;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.sharding.strategy.ShardingStrategy;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last step of a reshard: the new assignment, the flag's clearing at the version read and the removal of disabled
 * items beyond the count, in one multi, so that no reader ever sees a half-written assignment and a trigger or another
 * leader that changed the flag or the assignment since the read makes the whole write fail. The one writer of the
 * assignment node, so the one that knows the epoch this leader last wrote.
 */
final class AssignmentCommit {

    /** Under {@link ShardingService}'s name, as before the commit had a class of its own: log settings still apply. */
    private static final Logger log = LoggerFactory.getLogger(ShardingService.class);

    private final ClientRequests requests;
    private final JobNodes nodes;
    private final String jobName;
    private final Function<String, ShardingStrategy> strategies;
    private volatile long lastWrittenEpoch;

    AssignmentCommit(
            ClientRequests requests, JobNodes nodes, String jobName, Function<String, ShardingStrategy> strategies) {
        this.requests = requests;
        this.nodes = nodes;
        this.jobName = jobName;
        this.strategies = strategies;
    }

    /** The epoch this instance's last commit left in force (a new one, or the one kept); 0 before its first. */
    long lastWrittenEpoch() {
        return lastWrittenEpoch;
    }

    CompletableFuture<Optional<Assignment>> commit(ReshardState state, Stat flag) {
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
}
