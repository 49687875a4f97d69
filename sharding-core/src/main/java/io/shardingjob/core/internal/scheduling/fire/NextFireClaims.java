package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ClaimWrites;
import io.shardingjob.core.internal.ledger.ClaimsAheadRule;
import io.shardingjob.core.internal.ledger.FireNodes;
import io.shardingjob.core.internal.ledger.GroupCommit;
import io.shardingjob.core.internal.ledger.StartBatch;
import io.shardingjob.core.internal.scheduling.job.JobSnapshot;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import io.shardingjob.core.internal.sharding.ShardingService;
import io.shardingjob.core.sharding.Assignment;
import java.time.Instant;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Which claims of the schedule's next fire this instance makes ahead, created in the request that records the last
 * ends of a fire here, so that at the next fire instant no ZooKeeper round trip stands between the trigger and its
 * items. With {@code failover} on they are made with their starts written ({@link StartBatch#writesAhead}), only under
 * the assignment they were decided under ({@link io.shardingjob.core.internal.ledger.AssignmentGuard}), and their runs
 * begin at the fire with no write at all while the session was proven lately
 * ({@link io.shardingjob.core.internal.ledger.RunStart#decideWritten}); without, each run writes its start at the fire.
 * Once created they are held until their fire, and judged at it, by {@link ClaimsAhead}.
 */
public final class NextFireClaims implements GroupCommit.Ahead {

    private final JobView view;
    private final FireSchedule schedule;
    private final RunMemory memory;

    public NextFireClaims(JobView view, RunMemory memory, FireSchedule schedule) {
        this.memory = memory;
        this.view = view;
        this.schedule = schedule;
    }

    @Override
    public Next claimsAfter(List<Claim> lastEnds, List<Claim> ends) {
        if (schedule == FireSchedule.NONE) {
            return Next.NONE;
        }
        JobSnapshot job = view.snapshot();
        if (!job.available()) {
            return Next.NONE;
        }
        JobConfiguration config = job.configuration();
        String me = view.instanceId();
        ShardingService.Versioned versioned = job.assignment();
        Assignment assignment = versioned.assignment();
        // A job on demand has no next fire to claim ahead: its fires come when triggered.
        if (config.disabled()
                || config.isOnDemand()
                || job.instanceDisabled()
                || memory.auditedEpoch() != assignment.epoch()) {
            return Next.NONE;
        }
        Instant ended = lastEnds.stream()
                .map(Claim::fireTime)
                .max(Comparator.naturalOrder())
                .orElseThrow();
        Instant next = schedule.nextFireAfter(config, ended);
        // A next fire already past is the trigger's (it may wait in the queue of fires), or the audit's if missed.
        if (next == null || !next.isAfter(view.now())) {
            return Next.NONE;
        }
        Instant fireTime = FireSchedule.fireTimeOf(next);
        Set<Integer> unavailable = new HashSet<>(job.disabledItems());
        unavailable.addAll(memory.elsewhereItems());
        unavailable.addAll(memory.aheadItems(fireTime));
        Set<Integer> busy = new HashSet<>(memory.runningItems());
        ends.forEach(end -> busy.remove(end.item()));
        unavailable.addAll(busy);
        long session = job.sessionId();
        boolean started = StartBatch.writesAhead(config.failover());
        List<Claim> claims =
                ClaimsAheadRule.toClaimAhead(assignment.itemsOf(me), unavailable, memory.hasSeen(fireTime)).stream()
                        .map(item -> Claim.first(
                                item,
                                fireTime,
                                me,
                                session,
                                ExecutionSource.NORMAL,
                                assignment.epoch(),
                                assignment.shardingTotalCount(),
                                fireTime))
                        .map(claim -> started ? claim.startedAheadAt(fireTime) : claim)
                        .toList();
        // The server may create them a while before the answer is handled here, past their fire: an audit reading them
        // meanwhile must see them as this session's business, not as stranded.
        memory.requestingAhead(claims);
        return new Next(claims, fireNodes(config, assignment, me, fireTime), versioned.version());
    }

    /**
     * The owner of the job's lowest item creates the node of the fire after the next one, a period ahead of the claims
     * that go in it; the others take the next fire's node to exist (see {@link FireNodes}).
     */
    private FireNodes fireNodes(JobConfiguration config, Assignment assignment, String me, Instant next) {
        boolean creator = assignment.itemsByInstance().entrySet().stream()
                .filter(owner -> !owner.getValue().isEmpty())
                .min(Comparator.comparing(owner -> Collections.min(owner.getValue())))
                .map(owner -> owner.getKey().equals(me))
                .orElse(false);
        if (!creator) {
            return new FireNodes(true, null);
        }
        Instant after = schedule.nextFireAfter(config, next);
        return new FireNodes(false, after == null ? null : FireSchedule.fireTimeOf(after));
    }

    @Override
    public void claimed(Instant fireTime, List<Claim> requested, ClaimWrites.@Nullable Claimed claimed) {
        if (claimed != null) {
            // When the fire came meanwhile, its trigger found these in the ledger as this session's, or left them to
            // the audit: either way they are not kept here.
            memory.claimedAhead(fireTime, claimed.won().values());
        }
        memory.answeredAhead(requested);
    }
}
