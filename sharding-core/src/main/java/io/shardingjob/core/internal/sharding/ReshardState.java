package io.shardingjob.core.internal.sharding;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.sharding.Assignment;
import java.util.List;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * What a reshard is computed from, read from ZooKeeper rather than the cache; the flag null when it is down. The
 * versions it carries (the flag's, the assignment's) are what the write checks, so that a trigger or another leader
 * that changed either meanwhile makes the write fail and the reshard start over.
 */
record ReshardState(
        @Nullable Stat flag,
        JobConfiguration config,
        List<String> instances,
        Assignment previous,
        int assignmentVersion,
        List<String> disabledItems) {}
