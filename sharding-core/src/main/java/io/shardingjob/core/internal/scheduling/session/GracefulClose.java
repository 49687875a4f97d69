package io.shardingjob.core.internal.scheduling.session;

import io.shardingjob.core.internal.election.LeaderElection;
import io.shardingjob.core.internal.registry.InstanceRegistration;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.registry.LeavingMark;
import io.shardingjob.core.internal.scheduling.fire.ClaimsAhead;
import io.shardingjob.core.internal.scheduling.fire.ItemEnds;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of closing a started job that must happen while it is still registered, in this order: its items move to
 * other instances for later fires at once, the items it runs get the shutdown grace period, every end is written
 * to the ledger, and the claims it made ahead for fires to come are released. Done after the registration went, another
 * instance's audit would take over claims of work that had finished, and run it again. Without a connection then, the
 * close waits for it under the registration's session (see {@link InstanceRegistration#awaitSession()}): when other
 * jobs share the client the session outlives the job, and the claims under it would stay {@code RUNNING}, live, for
 * every later owner to wait on.
 *
 * <p>The registration is this session's word that its runs are alive, so a close never lets it go while a run it started
 * is: after the grace period the runs are interrupted, and the close then waits for every one of them to return (and its
 * claim to be released) however long that takes, saying at WARN every {@link #STILL_RUNNING_WARNING} which items it
 * still waits for. An item that ignores interrupts thus keeps the process, its session and its claims alive until it
 * returns; only a dead process (its session expiring) lets another instance take it over while it might still run.
 */
public final class GracefulClose {

    private static final Logger log = LoggerFactory.getLogger(GracefulClose.class);

    /** How often a close still waiting for interrupted runs says so. */
    static final Duration STILL_RUNNING_WARNING = Duration.ofSeconds(10);

    /** How often that wait checks that the client is still open. */
    private static final Duration CLIENT_CHECK = Duration.ofSeconds(1);

    private final CuratorFramework client;
    private final JobNodes nodes;
    private final InstanceRegistration registration;
    private final LeavingMark leavingMark;
    private final LeaderElection election;
    private final RunMemory memory;
    private final Owed owed;
    private final Duration shutdownGracePeriod;

    /**
     * What this instance owes the ledger before its registration goes: the ends of its runs not written yet, and the
     * claims it made ahead for fires to come.
     */
    public record Owed(ItemEnds ends, ClaimsAhead ahead) {}

    public GracefulClose(
            CuratorFramework client,
            JobNodes nodes,
            InstanceRegistration registration,
            LeavingMark leavingMark,
            LeaderElection election,
            RunMemory memory,
            Owed owed,
            Duration shutdownGracePeriod) {
        this.client = client;
        this.nodes = nodes;
        this.registration = registration;
        this.leavingMark = leavingMark;
        this.election = election;
        this.memory = memory;
        this.owed = owed;
        this.shutdownGracePeriod = shutdownGracePeriod;
    }

    /**
     * If the write of the ends still owed fails again, or the session is gone, the claims are the next owners' to take
     * over, as a crashed instance's are, once the registration goes.
     */
    public void run() {
        announceLeaving();
        // No audit comes any more to run what items are kept for: the items' next owners make it up.
        memory.stopHolding();
        if (!memory.awaitIdle(shutdownGracePeriod)) {
            log.warn(
                    "Job {}: items {} still running after the {} ms grace period; interrupting them, and releasing"
                            + " their claims as they return",
                    jobName(),
                    memory.runningItems(),
                    shutdownGracePeriod.toMillis());
            memory.abandonAll();
            awaitRunsReturned();
        }
        if (registration.awaitSession()) {
            // The closing thread may wait: nothing else needs it, and the answer comes or the connection fails it.
            owed.ends().writeOwed().join();
            // Claims of fires to come go to the items' next owners at once, not when this session has expired.
            owed.ahead().releaseAll();
        }
    }

    /**
     * Waits, however long it takes, until every run of this instance returned and its end was written or queued: the
     * registration, which goes after this, is what keeps every other instance from starting these items. An interrupt
     * of the closing thread does not cut the wait short (it would let the session end under a live run); it is kept
     * for the caller. Only a client closed under the job ends the wait: the session, and the registration with it, are
     * gone then, and no end can be written any more.
     */
    private void awaitRunsReturned() {
        long interruptedAt = System.nanoTime();
        long warnedAt = interruptedAt;
        boolean interrupted = false;
        while (!memory.awaitIdle(CLIENT_CHECK)) {
            if (Thread.interrupted()) {
                interrupted = true;
                continue;
            }
            if (client.getState() != CuratorFrameworkState.STARTED) {
                log.warn(
                        "Job {}: the ZooKeeper client was closed while items {} still ran here; their claims go with"
                                + " its session",
                        jobName(),
                        memory.runningItems());
                break;
            }
            long now = System.nanoTime();
            if (now - warnedAt >= STILL_RUNNING_WARNING.toNanos()) {
                warnedAt = now;
                log.warn(
                        "Job {}: items {} still running {} s after they were interrupted; this instance stays"
                                + " registered, and nobody else runs them, until they return",
                        jobName(),
                        memory.runningItems(),
                        Duration.ofNanos(now - interruptedAt).toSeconds());
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A closing instance gives its items up at once rather than after the grace period: it stays registered (its
     * claims stay live and nobody takes over what it is finishing) but is left out of the next assignment, and it
     * hands leadership over.
     */
    private void announceLeaving() {
        leavingMark.closing();
        try {
            election.close();
        } catch (Exception ex) {
            log.warn("Job {}: closing the {} failed: {}", jobName(), "leader election", ex.toString());
        }
    }

    /**
     * Takes the leaving mark back once the close deleted the registration (the session orders the two deletes), and
     * only then: withdrawn while the registration stays, the instance would be given items it never runs. Left, it
     * would live as long as the session, which outlives the job when the application's client serves other jobs: a
     * removed job's state could not be deleted cleanly, and the job started here again would get no items. A
     * registration that goes with its session takes the mark with it.
     */
    public void withdrawLeaving() {
        leavingMark.withdrawAfterClose();
    }

    private String jobName() {
        return JobNodes.name(nodes.root());
    }
}
