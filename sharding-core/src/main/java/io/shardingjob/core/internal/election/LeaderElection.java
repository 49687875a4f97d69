package io.shardingjob.core.internal.election;

import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Elects one leader per job: each candidate creates an ephemeral sequential node under the job's latch, and the one
 * ZooKeeper numbered first leads ({@link Candidates}). The leader publishes its instance id in an ephemeral node
 * ({@link LeaderIdNode}) that every instance reads from its cache; nobody polls to learn who leads.
 *
 * <p>Why not Curator's {@code LeaderLatch}: each latch starts a thread when it starts, and sends its create, its
 * listing and a read of its predecessor on its own, so thousands of jobs starting together cost thousands of threads
 * started and requests. Here a candidate's create and its listings go in the multis every job of the client shares
 * ({@link ClientRequests}), and the job's cache, which watches the latch with the rest of the job's state, tells when
 * a candidate comes or goes. Leadership is decided from a listing read after this candidate's node was created, never
 * from the cache, whose loads may read a later candidate before an earlier one.
 *
 * <p>An instance joins when it starts and leaves when it is disabled or closes, so that only live, enabled instances
 * lead. While the connection is suspended this instance does not lead; back on the same session it leads again if its
 * node is still the first (nobody else can have led meanwhile: its node stood before theirs), and on a new session it
 * stands again, behind the others. A create whose answer was lost with the connection is looked for by its guid once
 * the connection is back; a node of it found after it was given up is deleted. Race window: between leadership being
 * decided and the id node being written, readers still see the previous leader (or none); the id node is advisory,
 * decisions use {@link #isLeader()}.
 */
public final class LeaderElection implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

    private final CuratorFramework client;

    private final LeaderIdNode idNode;

    private final ClientRequests requests;

    private final JobNodes nodes;

    private final String instanceId;

    private final JobCache cache;

    private final Executor executor;

    private final Consumer<Boolean> onLeadershipChange;

    private final ConnectionStateListener connectionListener = this::connectionChanged;

    /** This instance's node in the election, and the session that created it. */
    private record Candidacy(String name, long sessionId) {}

    /** A create on its way, or whose answer was lost with the connection ({@code unknown}). */
    private record Attempt(String guid, long sessionId, boolean unknown) {}

    // Guarded by this.
    private boolean joined;

    private boolean listening;

    private @Nullable Candidacy candidacy;

    private @Nullable Attempt attempt;

    /** Attempts given up before their outcome was known: a node of theirs is deleted wherever a listing finds it. */
    private final Set<String> strays = new HashSet<>();

    /** Numbers the listings asked for: only the latest one's answer counts. */
    private long listings;

    /** Numbers the terms of leadership here, so that a publication of an ended term writes nothing. */
    private long term;

    private volatile boolean leader;

    public LeaderElection(
            CuratorFramework client,
            JobNodes nodes,
            String instanceId,
            JobCache cache,
            Executor executor,
            Consumer<Boolean> onLeadershipChange) {
        this.client = client;
        this.requests = new ClientRequests(client, "Election");
        this.idNode = new LeaderIdNode(client, requests, nodes, instanceId);
        this.nodes = nodes;
        this.instanceId = instanceId;
        this.cache = cache;
        this.executor = executor;
        this.onLeadershipChange = onLeadershipChange;
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
        Candidacy left = candidacy;
        candidacy = null;
        if (attempt != null) {
            strays.add(attempt.guid());
            attempt = null;
            list();
        }
        if (left != null) {
            // Not waited for: gone already, or goes with the session.
            requests.multiAsync("Leave", List.of(Op.delete(requests.full(latch(left.name())), -1)));
        }
        setLeader(false);
    }

    public boolean isLeader() {
        return leader;
    }

    @Override
    public void close() {
        leave();
        client.getConnectionStateListenable().removeListener(connectionListener);
    }

    /** Creates this instance's node, unless it has one or a create is on its way; without a session, on its return. */
    private void stand() {
        if (!joined || candidacy != null || attempt != null) {
            return;
        }
        long session = currentSession();
        if (session == 0) {
            return;
        }
        String guid = UUID.randomUUID().toString();
        attempt = new Attempt(guid, session, false);
        Op create = requests.create(
                latch(Candidates.prefix(guid)),
                instanceId.getBytes(StandardCharsets.UTF_8),
                CreateMode.EPHEMERAL_SEQUENTIAL);
        requests.multiAsync("Stand", List.of(create))
                .whenComplete((answer, failure) -> stood(guid, session, answer, failure));
    }

    private synchronized void stood(
            String guid, long session, @Nullable MultiAnswer answer, @Nullable Throwable failure) {
        Attempt current = attempt;
        if (current == null || !current.guid().equals(guid)) {
            // Given up meanwhile (left, or a new session): a node it made is nobody's candidacy.
            strays.add(guid);
            list();
            return;
        }
        if (failure != null || answer == null) {
            // Made or not: a listing once the connection is back tells.
            attempt = new Attempt(guid, session, true);
            list();
            return;
        }
        attempt = null;
        if (!answer.ok()) {
            log.warn(
                    "Job {}: instance {} could not stand in the leader election: {}",
                    JobNodes.name(nodes.root()),
                    instanceId,
                    answer.refusal());
            return;
        }
        OpResult.CreateResult created = (OpResult.CreateResult) answer.results().get(0);
        candidacy = new Candidacy(JobNodes.name(created.getPath()), session);
        list();
    }

    /** Reads the candidates, merged with the client's other reads; the answer decides who leads. */
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
            setLeader(false);
            return;
        }
        List<String> names = listing.getChildren();
        long session = currentSession();
        Attempt lost = attempt;
        if (lost != null && lost.unknown()) {
            Optional<String> found = Candidates.ofAttempt(lost.guid(), names);
            attempt = null;
            if (found.isPresent() && lost.sessionId() == session) {
                candidacy = new Candidacy(found.get(), session);
            } else {
                strays.add(lost.guid());
            }
        }
        removeStrays(names);
        Candidacy mine = candidacy;
        if (mine != null && (mine.sessionId() != session || !names.contains(mine.name()))) {
            // Its session ended, or its node was deleted: it stands again, behind the others.
            candidacy = null;
            mine = null;
        }
        if (mine == null) {
            setLeader(false);
            stand();
            return;
        }
        setLeader(Candidates.leads(mine.name(), names));
    }

    /** Deletes the nodes of attempts given up: ephemeral nodes of this client's that no candidacy stands for. */
    private void removeStrays(List<String> names) {
        for (String guid : Set.copyOf(strays)) {
            Optional<String> stray = Candidates.ofAttempt(guid, names);
            if (stray.isPresent() && (candidacy == null || !candidacy.name().equals(stray.get()))) {
                requests.multiAsync("Leave", List.of(Op.delete(requests.full(latch(stray.get())), -1)));
            } else if (stray.isEmpty() && attempt == null) {
                strays.remove(guid);
            }
        }
    }

    /** The job's cache saw a candidate come or go. */
    private void registryChanged(@Nullable String path) {
        if (path == null || !path.startsWith(nodes.leaderLatch() + "/")) {
            return;
        }
        synchronized (this) {
            if (joined && attempt == null) {
                list();
            }
        }
    }

    private void connectionChanged(CuratorFramework changed, ConnectionState state) {
        synchronized (this) {
            switch (state) {
                case SUSPENDED -> setLeader(false);
                case LOST -> {
                    candidacy = null;
                    if (attempt != null) {
                        strays.add(attempt.guid());
                        attempt = null;
                    }
                    setLeader(false);
                }
                case CONNECTED, RECONNECTED -> {
                    if (joined) {
                        list();
                    }
                }
                default -> {
                    // READ_ONLY: never asked for.
                }
            }
        }
    }

    /** Changes whether this instance leads, and tells it on the executor once the id node is written or removed. */
    private void setLeader(boolean leads) {
        if (leader == leads) {
            return;
        }
        leader = leads;
        long now = ++term;
        if (leads) {
            tell(() -> idNode.publish(() -> leadsIn(now))
                    .whenComplete((published, failure) -> onLeadershipChange.accept(true)));
        } else {
            tell(() -> idNode.remove().whenComplete((removed, failure) -> onLeadershipChange.accept(false)));
        }
    }

    private void tell(Runnable change) {
        try {
            executor.execute(change);
        } catch (RejectedExecutionException stopping) {
            // The job is closing: its id node goes now all the same.
            change.run();
        }
    }

    private synchronized boolean leadsIn(long leadership) {
        return leader && term == leadership;
    }

    private String latch(String name) {
        return nodes.leaderLatch() + "/" + name;
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
