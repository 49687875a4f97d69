package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.scheduling.job.JobSnapshot;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.session.SessionState;
import io.shardingjob.core.internal.sharding.ShardingService;
import io.shardingjob.core.sharding.Assignment;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One job on this instance as it stands now, read from its parts whenever asked: the {@link JobView} the stages of its
 * fires read, and what an operator reads of it through the handle (the leader, the live instances). Nothing here
 * changes anything.
 */
public final class JobState implements JobView {

    private final String instanceId;
    private final String jobName;
    private final Clock clock;
    private final Lifecycle lifecycle;
    private final SessionState session;
    private final JobRegistry registry;

    /** The items this instance owns under the assignment last snapshotted, while it is the same one: every run asks. */
    private volatile @Nullable Owned owned;

    private record Owned(Assignment assignment, Set<Integer> items) {}

    JobState(String instanceId, Clock clock, Lifecycle lifecycle, SessionState session, JobRegistry registry) {
        this.instanceId = instanceId;
        this.clock = clock;
        this.lifecycle = lifecycle;
        this.session = session;
        this.registry = registry;
        this.jobName = JobNodes.name(registry.nodes().root());
    }

    @Override
    public JobSnapshot snapshot() {
        long current = sessionId();
        ShardingService.Versioned versioned = registry.sharding().currentVersioned();
        return new JobSnapshot(
                current,
                isAvailableIn(current),
                configuration(),
                versioned,
                ownedUnder(versioned.assignment()),
                leftOut(),
                Set.copyOf(disabledItems()));
    }

    /** Disabled by an operator or marked leaving: the instances every reshard leaves out, as the leader reads them. */
    private boolean leftOut() {
        return disabledInstances().contains(instanceId) || leavingInstances().contains(instanceId);
    }

    private Set<Integer> ownedUnder(Assignment assignment) {
        Owned known = owned;
        if (known != null && known.assignment() == assignment) {
            return known.items();
        }
        Set<Integer> items = Set.copyOf(assignment.itemsOf(instanceId));
        owned = new Owned(assignment, items);
        return items;
    }

    @Override
    public String instanceId() {
        return instanceId;
    }

    @Override
    public String jobName() {
        return jobName;
    }

    @Override
    public JobConfiguration configuration() {
        return registry.configurations().effective();
    }

    @Override
    public boolean isStarted() {
        return lifecycle.isStarted();
    }

    @Override
    public boolean isAvailable() {
        // Registered under the current session, too: a claim names its session, and a session without a registration
        // looks dead to every other instance's audit, which would take its claims over while it runs them. After a
        // fast restart under the same id, the old session's node is still there until it expires.
        return isAvailableIn(sessionId());
    }

    private boolean isAvailableIn(long current) {
        return isStarted()
                && !session.isSuspended()
                && current != 0
                && registry.registration().sessionId() == current;
    }

    @Override
    public long sessionId() {
        try {
            return registry.client().getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception ex) {
            return 0;
        }
    }

    @Override
    public Instant now() {
        return clock.instant();
    }

    @Override
    public Duration absentOwnersUndecidedFor(Instant now) {
        return session.absentOwnersUndecidedFor(now);
    }

    @Override
    public Assignment assignment() {
        return registry.sharding().currentAssignment();
    }

    @Override
    public ShardingService.Versioned readVersionedAssignment() {
        return registry.sharding().readVersioned();
    }

    public List<Integer> localItems() {
        return assignment().itemsOf(instanceId);
    }

    public boolean isReshardPending() {
        return registry.sharding().isReshardPending();
    }

    public boolean isLeader() {
        return registry.election().isLeader();
    }

    /** The leader's instance id, from the cache. */
    public Optional<String> leaderId() {
        return registry.cache()
                .data(registry.nodes().leaderInstance())
                .map(data -> new String(data, StandardCharsets.UTF_8));
    }

    /** Every live instance of the job, sorted, disabled ones included. */
    public List<String> liveInstances() {
        return registry.cache().children(registry.nodes().instances());
    }

    public List<String> disabledInstances() {
        return registry.cache().children(registry.nodes().disabledInstances());
    }

    /** The instances whose leaving mark every reshard leaves out: standing by, or closing. */
    public List<String> leavingInstances() {
        return registry.cache().children(registry.nodes().leavingInstances());
    }

    public List<Integer> disabledItems() {
        return registry.cache().children(registry.nodes().disabledItems()).stream()
                .map(Integer::valueOf)
                .sorted()
                .toList();
    }
}
