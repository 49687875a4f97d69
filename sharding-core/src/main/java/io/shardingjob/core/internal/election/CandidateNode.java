package io.shardingjob.core.internal.election;

import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.x.async.AsyncCuratorFramework;
import org.apache.curator.x.async.api.DeleteOption;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's node under the job's latch, across connection losses: the create of an attempt to stand, named by a
 * guid so that an attempt whose answer was lost with the connection can find its node; the node that attempt made,
 * valid for the session that made it; and the attempts given up before their outcome was known, whose nodes are
 * deleted wherever a listing finds them. Not thread-safe: {@link LeaderElection} calls it under its lock.
 *
 * <p>A node it no longer stands with is deleted with Curator's guaranteed delete, which sends the delete again after a
 * connection loss until it is answered: a delete lost in a blip that the session outlives would otherwise leave the node
 * first in line, and nobody would lead until the session ended (a client shared by other jobs may never end it). The
 * delete is of the node's name, at any version: each name is made once, by one attempt of this session, so a delete sent
 * again late can only find that node or nothing, never another candidate's. It goes as a request of its own, not in the
 * multis the client's jobs share: Curator sends again only its own operations.
 */
final class CandidateNode {

    /** Under {@link LeaderElection}'s name, as before the node had a class of its own: log settings apply. */
    private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

    private final ClientRequests requests;
    private final AsyncCuratorFramework async;
    private final JobNodes nodes;
    private final String instanceId;

    private record Standing(String name, long sessionId) {}

    /** A create on its way, or whose answer was lost with the connection ({@code unknown}). */
    private record Attempt(String guid, long sessionId, boolean unknown) {}

    /** The answer to an attempt's create, for {@link #stood}; null when the connection failed before one came. */
    record Stood(String guid, long sessionId, @Nullable MultiAnswer answer) {}

    private @Nullable Standing standing;
    private @Nullable Attempt attempt;

    /** Attempts given up before their outcome was known: a node of theirs is deleted wherever a listing finds it. */
    private final Set<String> strays = new HashSet<>();

    CandidateNode(ClientRequests requests, AsyncCuratorFramework async, JobNodes nodes, String instanceId) {
        this.requests = requests;
        this.async = async;
        this.nodes = nodes;
        this.instanceId = instanceId;
    }

    boolean stands() {
        return standing != null || attempt != null;
    }

    /**
     * Whether attempts given up before their outcome was known may have left a node that no listing has found yet: a
     * listing is owed even once this instance left, or that node would stand, maybe first, until the session ends.
     */
    boolean seeksStrays() {
        return !strays.isEmpty();
    }

    /** Whether a create is on its way or its outcome is unknown: its answer, or the listing once connected, decides. */
    boolean attempting() {
        return attempt != null;
    }

    /** Creates the node under {@code session}; the answer is to be given to {@link #stood} under the same lock. */
    CompletableFuture<Stood> stand(long session) {
        String guid = UUID.randomUUID().toString();
        attempt = new Attempt(guid, session, false);
        Op create = requests.create(
                latch(Candidates.prefix(guid)),
                instanceId.getBytes(StandardCharsets.UTF_8),
                CreateMode.EPHEMERAL_SEQUENTIAL);
        return requests.multiAsync("Stand", List.of(create))
                .handle((answer, failure) -> new Stood(guid, session, failure == null ? answer : null));
    }

    /** Records a create's answer; true when a listing is to decide now (whether it leads, or where its node is). */
    boolean stood(Stood stood) {
        Attempt current = attempt;
        if (current == null || !current.guid().equals(stood.guid())) {
            // Given up meanwhile (left, or a new session): a node it made is nobody's candidacy.
            strays.add(stood.guid());
            return true;
        }
        if (stood.answer() == null) {
            // Made or not: a listing once the connection is back tells.
            attempt = new Attempt(stood.guid(), stood.sessionId(), true);
            return true;
        }
        attempt = null;
        if (!stood.answer().ok()) {
            log.warn(
                    "Job {}: instance {} could not stand in the leader election: {}",
                    JobNodes.name(nodes.root()),
                    instanceId,
                    stood.answer().refusal());
            return false;
        }
        OpResult.CreateResult created =
                (OpResult.CreateResult) stood.answer().results().get(0);
        standing = new Standing(JobNodes.name(created.getPath()), stood.sessionId());
        return true;
    }

    /**
     * Stops standing: its node is deleted (not waited for) and an attempt on its way given up; whether there was one,
     * so that a listing is to find a node it made.
     */
    boolean withdraw() {
        Standing left = standing;
        boolean gaveUp = giveUp();
        if (left != null) {
            deleteAsync(left.name());
        }
        return gaveUp;
    }

    /**
     * Brings what it knows in line with a listing read under {@code session}: finds the node of an attempt whose answer
     * was lost, deletes the nodes of attempts given up, and drops its node if its session ended or it was deleted. Its
     * node's name, or null when it is to stand (again).
     */
    @Nullable
    String listed(List<String> names, long session) {
        Attempt lost = attempt;
        if (lost != null && lost.unknown()) {
            Optional<String> found = Candidates.ofAttempt(lost.guid(), names);
            attempt = null;
            if (found.isPresent() && lost.sessionId() == session) {
                standing = new Standing(found.get(), session);
            } else {
                strays.add(lost.guid());
            }
        }
        removeStrays(names);
        Standing mine = standing;
        if (mine != null && (mine.sessionId() != session || !names.contains(mine.name()))) {
            // Its session ended, or its node was deleted: it stands again, behind the others.
            standing = null;
        }
        return standing == null ? null : standing.name();
    }

    /** Forgets its node and gives up an attempt on its way: whether there was one. */
    boolean giveUp() {
        standing = null;
        if (attempt == null) {
            return false;
        }
        strays.add(attempt.guid());
        attempt = null;
        return true;
    }

    /** Deletes the nodes of attempts given up: ephemeral nodes of this client's that no candidacy stands for. */
    private void removeStrays(List<String> names) {
        for (String guid : Set.copyOf(strays)) {
            Optional<String> stray = Candidates.ofAttempt(guid, names);
            if (stray.isPresent() && (standing == null || !standing.name().equals(stray.get()))) {
                deleteAsync(stray.get());
            } else if (stray.isEmpty() && attempt == null) {
                strays.remove(guid);
            }
        }
    }

    /** Sent again after a connection loss until answered. */
    private void deleteAsync(String name) {
        async.delete().withOptions(EnumSet.of(DeleteOption.guaranteed)).forPath(latch(name));
    }

    private String latch(String name) {
        return nodes.leaderLatch() + "/" + name;
    }
}
