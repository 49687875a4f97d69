package io.shardingjob.core.internal.election;

import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.x.async.AsyncCuratorFramework;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Elects one leader per job: each candidate creates an ephemeral sequential node under the job's latch ({@link
 * CandidateNode}), and the one ZooKeeper numbered first leads ({@link Candidates}). The leader publishes its instance
 * id ({@link Leadership}) for every instance's cache. An instance joins when it starts and leaves when it is disabled
 * or closes, so that only live, enabled instances lead.
 *
 * <p>Why not Curator's {@code LeaderLatch}: each latch starts a thread, and sends its create, its listing and a read of
 * its predecessor on its own, so thousands of jobs starting together cost thousands of threads and requests. Here a
 * candidate's create and its listings go in the multis every job of the client shares ({@link ClientRequests}), and
 * the job's cache tells when a candidate comes or goes. Leadership is decided from a listing read after this
 * candidate's node was created, never from the cache, whose loads may read a later candidate before an earlier one;
 * only the latest listing asked for decides.
 *
 * <p>Race windows:
 *
 * <ul>
 *   <li>While the connection is SUSPENDED this instance does not lead, although its node may still stand first and
 *       nobody else leads either. Back on the same session it leads again if its node is still the first (nobody else
 *       can have led meanwhile: its node stood before theirs); on a new session (after LOST) it stands again, behind
 *       the others.
 *   <li>A create whose answer was lost with the connection may or may not have made a node: a listing once the
 *       connection is back looks for it by its guid. A node of an attempt given up before its answer came (left, or
 *       its session lost) is deleted wherever a listing finds it; such listings go on after a leave, once the
 *       connection is back and whenever a candidate comes or goes, until none of those attempts can have a node.
 *   <li>Between leadership being decided and the id node being written, readers still see the previous leader (or
 *       none): the id node is advisory, decisions use {@link #isLeader()}.
 *   <li>A leave deletes its node without waiting: while the delete is on its way the next candidate does not lead
 *       yet. A delete lost with the connection is sent again once it is back (Curator's guaranteed delete): while the
 *       connection is down the node still stands first and nobody leads; on the same session it goes at the next
 *       answer, on a new session it went with the old one.
 *   <li>A leader's id node whose removal was lost with the connection names it until the next leader publishes (which
 *       removes it at the version read) or its session ends: advisory, as above.
 * </ul>
 */
public final class LeaderElection implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);
    private final CuratorFramework client;
    private final ClientRequests requests;
    private final JobNodes nodes;
    private final JobCache cache;
    private final Leadership leadership;
    private final ConnectionStateListener connectionListener = this::connectionChanged;

    // Guarded by this.
    private final CandidateNode candidate;
    private boolean joined;
    private boolean listening;

    /** Numbers the listings asked for: only the latest one's answer counts. */
    private long listings;

    public LeaderElection(
            CuratorFramework client,
            JobNodes nodes,
            String instanceId,
            JobCache cache,
            Executor executor,
            Consumer<Boolean> onLeadershipChange) {
        this.client = client;
        this.requests = new ClientRequests(client, "Election");
        this.nodes = nodes;
        this.cache = cache;
        this.candidate = new CandidateNode(requests, AsyncCuratorFramework.wrap(client), nodes, instanceId);
        this.leadership = new Leadership(client, requests, nodes, instanceId, executor, onLeadershipChange);
    }

    /** Takes part in the election; does nothing if already taking part. */
    public synchronized void join() {
        if (joined) {
            return;
        }
        joined = true;
        if (!listening) {
            listening = true;
            cache.addListener(this::registryChanged);
            client.getConnectionStateListenable().addListener(connectionListener);
        }
        stand();
    }

    /** Stops taking part; a leader hands over to the next candidate at once. */
    public synchronized void leave() {
        if (!joined) {
            return;
        }
        joined = false;
        if (candidate.withdraw()) {
            list();
        }
        leadership.set(false);
    }

    public boolean isLeader() {
        return leadership.isLeader();
    }

    @Override
    public void close() {
        leave();
        client.getConnectionStateListenable().removeListener(connectionListener);
    }

    /** Creates this instance's node, unless it has one or a create is on its way; without a session, on its return. */
    private void stand() {
        if (!joined || candidate.stands()) {
            return;
        }
        long session = currentSession();
        if (session != 0) {
            candidate.stand(session).thenAccept(this::stood);
        }
    }

    private synchronized void stood(CandidateNode.Stood stood) {
        if (candidate.stood(stood)) {
            list();
        }
    }

    /** Reads the candidates: the answer decides who leads. */
    private void list() {
        long stamp = ++listings;
        requests.readAsync(
                        "List",
                        List.of(Op.getChildren(requests.full(nodes.leaderLatch()))),
                        ClientRequests.SMALL_LISTING_BYTES,
                        ClientRequests.READ_DATA_BYTES)
                .whenComplete((answer, failure) -> listed(stamp, answer, failure));
    }

    private synchronized void listed(long stamp, @Nullable MultiAnswer answer, @Nullable Throwable failure) {
        if (stamp != listings || failure != null || answer == null) {
            // A later listing decides; a lost one is asked again once the connection is back.
            return;
        }
        if (!(answer.results().get(0) instanceof OpResult.GetChildrenResult listing)) {
            log.warn(
                    "Job {}: could not list the leader election: {}",
                    JobNodes.name(nodes.root()),
                    MultiAnswer.codeOf(answer.results().get(0)));
            leadership.set(false);
            return;
        }
        List<String> names = listing.getChildren();
        String mine = candidate.listed(names, currentSession());
        if (mine == null) {
            leadership.set(false);
            stand();
        } else {
            leadership.set(Candidates.leads(mine, names));
        }
    }

    /** The job's cache saw a candidate come or go: a listing decides, or finds the nodes of attempts given up. */
    private void registryChanged(@Nullable String path) {
        if (path == null || !path.startsWith(nodes.leaderLatch() + "/")) {
            return;
        }
        synchronized (this) {
            if ((joined || candidate.seeksStrays()) && !candidate.attempting()) {
                list();
            }
        }
    }

    private synchronized void connectionChanged(CuratorFramework changed, ConnectionState state) {
        switch (state) {
            case SUSPENDED -> leadership.set(false);
            case LOST -> {
                // The session is gone, and the node with it.
                candidate.giveUp();
                leadership.set(false);
            }
            case CONNECTED, RECONNECTED -> {
                if (joined || candidate.seeksStrays()) {
                    list();
                }
            }
            default -> {
                // READ_ONLY: never asked for.
            }
        }
    }

    private long currentSession() {
        try {
            return client.getZookeeperClient().isConnected()
                    ? client.getZookeeperClient().getZooKeeper().getSessionId()
                    : 0;
        } catch (Exception closed) {
            return 0;
        }
    }
}
