package io.shardingjob.core.internal.scheduling.session;

import io.shardingjob.core.internal.election.LeaderElection;
import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.Answers;
import io.shardingjob.core.internal.scheduling.fire.ManualFires;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.SerialExecutor;
import io.shardingjob.core.internal.sharding.ShardingService;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one job does when its registry changes under it: another instance came or went, the leader wrote an assignment,
 * an operator disabled or enabled this instance or asked for a fire, this instance became or stopped being the leader,
 * or its own registration was created again. Kept together because they are the job's only reactions to other
 * instances and operators. Each runs on the job's serial executor, so the job never reacts to two events at once, and
 * each only wakes waiting fires, follows the disabled flag out of or into the election, hands a manual fire on, or asks
 * for an audit, a reshard or a reconcile.
 */
public final class RegistryReactions {

    private static final Logger log = LoggerFactory.getLogger(RegistryReactions.class);
    private final JobView view;
    private final FollowUps followUps;
    private final JobNodes nodes;
    private final JobCache cache;
    private final LeaderElection election;
    private final ManualFires manualFires;
    private final SerialExecutor serial;

    public RegistryReactions(
            JobView view,
            FollowUps followUps,
            JobNodes nodes,
            JobCache cache,
            LeaderElection election,
            ManualFires manualFires,
            SerialExecutor serial) {
        this.view = view;
        this.followUps = followUps;
        this.nodes = nodes;
        this.cache = cache;
        this.election = election;
        this.manualFires = manualFires;
        this.serial = serial;
    }

    /** A node of the job's registry was created, changed or deleted; {@code null} once the cache's first load ended. */
    public void registryChanged(@Nullable String path) {
        followUps.waitingFires().signal();
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
                        && !followUps.audits().hasAudited(view.assignment().epoch()))
                || (path != null && path.startsWith(nodes.instances() + "/") && !cache.exists(path))
                || nodes.history().equals(path)
                || nodes.rerun().equals(path)) {
            // A new assignment may give this instance items whose earlier fires were left undone, and an instance that
            // went away may have left claims of items this instance owns already. An operator's change (the history
            // records each) may have enabled a job or item whose due fires wait to be made up, and an operator's re-run
            // reopened claims that the owners of their items take over.
            followUps.audits().soon();
        }
        String instanceId = view.instanceId();
        if (nodes.disabledInstance(instanceId).equals(path)) {
            if (cache.exists(path)) {
                log.info("Job {}: instance {} disabled, leaving the election", view.jobName(), instanceId);
                election.leave();
            } else {
                log.info("Job {}: instance {} enabled, joining the election", view.jobName(), instanceId);
                election.join();
            }
        }
        followUps.reconciler().reconcileSoon();
    }

    /** The new leader reconciles at once rather than at the next periodic check. */
    void leadershipChanged(boolean leader) {
        followUps.waitingFires().signal();
        if (leader) {
            serial.submit(followUps.reconciler()::reconcile);
        }
    }

    /**
     * This instance's registration was created under its current session: the leader must give it items again. Asked
     * for without the other reactions, as the registration is built before them.
     */
    public static CompletableFuture<Void> instanceRegistered(
            ShardingService sharding, String jobName, String instanceId) {
        String reason = "instance " + instanceId + " registered";
        return sharding.requestReshardAsync(reason).exceptionally(failure -> {
            log.warn(
                    "Job {}: could not request a reshard ({}); the leader's reconcile will: {}",
                    jobName,
                    reason,
                    Answers.cause(failure).toString());
            return null;
        });
    }
}
