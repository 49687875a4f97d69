package io.shardingjob.core.internal.sharding;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import io.shardingjob.core.sharding.Assignment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The first step of a reshard: the flag and everything the assignment is computed from, read from ZooKeeper in one
 * request; the one place that knows which nodes a reshard depends on.
 */
final class ReshardStateReader {

    private final ClientRequests requests;
    private final JobNodes nodes;
    private final String jobName;
    private final Supplier<JobConfiguration> configuration;

    ReshardStateReader(
            ClientRequests requests, JobNodes nodes, String jobName, Supplier<JobConfiguration> configuration) {
        this.requests = requests;
        this.nodes = nodes;
        this.jobName = jobName;
        this.configuration = configuration;
    }

    /**
     * One multi of reads, merged with the reads the client's other jobs send meanwhile: thousands of jobs electing
     * leaders at start-up each read it once.
     */
    CompletableFuture<ReshardState> read() {
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
                .thenApply(answer -> {
                    List<OpResult> results = answer.results();
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
                    return new ReshardState(
                            flag,
                            configuration(results.get(1)),
                            sharding,
                            previous,
                            assignmentVersion,
                            listing(results, 6, nodes.disabledItems()));
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
