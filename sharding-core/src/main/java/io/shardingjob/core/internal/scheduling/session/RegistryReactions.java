package io.shardingjob.core.internal.scheduling.session;

import io.shardingjob.core.internal.election.LeaderElection;
import io.shardingjob.core.internal.registry.Answers;
import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.scheduling.audit.AuditRequests;
import io.shardingjob.core.internal.scheduling.fire.AssignmentWait;
import io.shardingjob.core.internal.scheduling.fire.ManualFires;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.sharding.ShardingService;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one job does when its registry changes under it: another instance came or went, the leader wrote an assignment,
 * an operator disabled or enabled this instance or asked for a fire, or this instance's own registration was created
 * again. Kept together because they are the job's only reactions to other instances and operators. Each runs on the
 * job's serial executor, so the job never reacts to two events at once, and each only wakes waiting fires, follows the
 * disabled flag out of or into the election, hands a manual fire on, or asks for an audit, a reshard or a reconcile.
 */
public final class RegistryReactions {

    private static final Logger log = LoggerFactory.getLogger(RegistryReactions.class);

    private final JobView view;

    private final AssignmentWait assignmentWait;

    private final JobNodes nodes;

    private final JobCache cache;

    private final LeaderElection election;

    private final ShardingService sharding;

    private final Reconciler reconciler;

    private final AuditRequests audits;

    private final ManualFires manualFires;

    private final String instanceId;

    public RegistryReactions(
            JobView view,
            AssignmentWait assignmentWait,
            JobNodes nodes,
            JobCache cache,
            LeaderElection election,
            ShardingService sharding,
            Reconciler reconciler,
            AuditRequests audits,
            ManualFires manualFires,
            String instanceId) {
        this.view = view;
        this.assignmentWait = assignmentWait;
        this.nodes = nodes;
        this.cache = cache;
        this.election = election;
        this.sharding = sharding;
        this.reconciler = reconciler;
        this.audits = audits;
        this.manualFires = manualFires;
        this.instanceId = instanceId;
    }

    /** A node of the job's registry was created, changed or deleted; {@code null} once the cache's first load ended. */
    public void registryChanged(@Nullable String path) {
        assignmentWait.signal();
        if (!view.isStarted()) {
            return;
        }
        if (path == null) {
            manualFires.loaded();
        } else if (nodes.manualFire().equals(path)) {
            // An operator's fire, on any instance: this instance starts its items of it now.
            manualFires.announced(cache.data(path).orElse(null));
            return;
        }
        if ((nodes.assignment().equals(path)
                        && !audits.hasAudited(view.assignment().epoch()))
                || (path != null && path.startsWith(nodes.instances() + "/") && !cache.exists(path))
                || nodes.history().equals(path)
                || nodes.rerun().equals(path)) {
            // A new assignment may give this instance items whose earlier fires were left undone, and an instance that
            // went away may have left claims of items this instance owns already. An operator's change (the history
            // records each) may have enabled a job or item whose due fires wait to be made up, and an operator's re-run
            // reopened claims that the owners of their items take over.
            audits.soon();
        }
        if (nodes.disabledInstance(instanceId).equals(path)) {
            if (cache.exists(path)) {
                log.info("Job {}: instance {} disabled, leaving the election", view.jobName(), instanceId);
                election.leave();
            } else {
                log.info("Job {}: instance {} enabled, joining the election", view.jobName(), instanceId);
                election.join();
            }
        }
        reconciler.reconcileSoon();
    }

    /** This instance's registration was created under its current session: the leader must give it items again. */
    public CompletableFuture<Void> instanceRegistered() {
        String reason = "instance " + instanceId + " registered";
        return sharding.requestReshardAsync(reason).exceptionally(failure -> {
            log.warn(
                    "Job {}: could not request a reshard ({}); the leader's reconcile will: {}",
                    view.jobName(),
                    reason,
                    Answers.cause(failure).toString());
            return null;
        });
    }
}
